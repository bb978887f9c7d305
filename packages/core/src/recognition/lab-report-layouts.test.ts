import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseLabReport, type LabRow, type OcrLine } from './lab-report.js';

type Expected = readonly [name: string, code: string, value: string, unit: string, range: string, flag: string];
type Point = [number, number];

/** The text height of a page read at 2000 pixels; a CJK character is about as wide as it is high. */
const H = 28;
const widthOf = (text: string) => [...text].reduce((w, c) => w + (/[\u3400-\u9fff]/.test(c) ? H : H * 0.55), 0);
const piece = (text: string, x: number, y: number): OcrLine => {
  const w = Math.max(12, widthOf(text));
  return {
    text,
    confidence: 0.95,
    box: [
      [x, y],
      [x + w, y],
      [x + w, y + H],
      [x, y + H],
    ],
  };
};

interface Sheet {
  lines: OcrLine[];
  /** The analyte rows in reading order (a left table before the right one), each with the pieces printed for it. */
  rows: { cells: OcrLine[]; expected: Expected }[];
}

/** A table as a report prints it: a header (or none) at y0, then a row every 40 pixels, columns at `columns`. */
function table(
  x0: number,
  y0: number,
  columns: readonly number[],
  header: readonly string[] | undefined,
  rows: readonly (readonly [readonly string[], Expected])[],
): Sheet {
  const lines: OcrLine[] = [];
  header?.forEach((text, i) => lines.push(piece(text, x0 + columns[i]!, y0)));
  const out: Sheet['rows'] = rows.map(([cells, expected], r) => {
    const placed = cells.flatMap((text, i) => (text ? [piece(text, x0 + columns[i]!, y0 + 40 * (r + 1))] : []));
    lines.push(...placed);
    return { cells: placed, expected };
  });
  return { lines, rows: out };
}

const page = (...parts: Sheet[]): Sheet => ({
  lines: parts.flatMap((p) => p.lines),
  rows: parts.flatMap((p) => p.rows),
});

const around = (lines: readonly OcrLine[], degrees: number): OcrLine[] => {
  const [c, s] = [Math.cos((degrees * Math.PI) / 180), Math.sin((degrees * Math.PI) / 180)];
  const turn = ([x, y]: readonly [number, number]): Point => [
    800 + (x - 800) * c - (y - 600) * s,
    600 + (x - 800) * s + (y - 600) * c,
  ];
  return lines.map((l) => ({ ...l, box: l.box.map(turn) }));
};

const turned = (sheet: Sheet, degrees: number): Sheet => ({
  lines: around(sheet.lines, degrees),
  rows: sheet.rows.map((r) => ({ ...r, cells: around(r.cells, degrees) })),
});

const boundsOf = (lines: readonly OcrLine[]) => {
  const xs = lines.flatMap((l) => l.box.map((p) => p[0]));
  const ys = lines.flatMap((l) => l.box.map((p) => p[1]));
  return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
};

const fields = (rows: readonly LabRow[]) =>
  rows.map((r) => [r.name, r.code, r.value, r.unit, r.referenceRange, r.flag]);

/** The page's rows are read, in reading order, each with the bounds of exactly its own pieces. */
function expectRead(sheet: Sheet, lines: readonly OcrLine[] = sheet.lines) {
  const rows = parseLabReport(lines);
  expect(fields(rows)).toEqual(sheet.rows.map((r) => r.expected));
  rows.forEach((row, i) => {
    const want = boundsOf(sheet.rows[i]!.cells);
    row.box!.forEach((v, k) => expect(v).toBeCloseTo(want[k]!, 6));
  });
}

const titled = (sheet: Sheet): Sheet => ({
  lines: [
    piece('某某市人民医院检验报告单', 560, 40),
    piece('姓名：张三', 60, 110),
    piece('性别：男', 420, 110),
    piece('年龄：45岁', 860, 110),
    piece('科室：内科', 1220, 110),
    ...sheet.lines,
    piece('检验者：李四', 60, 900),
    piece('审核者：王五', 860, 900),
  ],
  rows: sheet.rows,
});

const NAME_FIRST = [0, 260, 370, 490];
const BLOOD: readonly (readonly [readonly string[], Expected])[] = [
  [
    ['白细胞计数', '6.52', '10^9/L', '3.5-9.5'],
    ['白细胞计数', 'WBC', '6.52', '10^9/L', '3.5-9.5', ''],
  ],
  [
    ['红细胞计数', '4.51', '10^12/L', '4.3-5.8'],
    ['红细胞计数', 'RBC', '4.51', '10^12/L', '4.3-5.8', ''],
  ],
  [
    ['血红蛋白', '98↓', 'g/L', '130-175'],
    ['血红蛋白', 'HGB', '98', 'g/L', '130-175', '↓'],
  ],
  [
    ['血小板计数', '210', '10^9/L', '125-350'],
    ['血小板计数', 'PLT', '210', '10^9/L', '125-350', ''],
  ],
  [
    ['中性粒细胞百分比', '72.1', '%', '40-75'],
    ['中性粒细胞百分比', 'NEUT%', '72.1', '%', '40-75', ''],
  ],
];
const CHEMISTRY: readonly (readonly [readonly string[], Expected])[] = [
  [
    ['谷丙转氨酶', '56↑', 'U/L', '9-50'],
    ['谷丙转氨酶', 'ALT', '56', 'U/L', '9-50', '↑'],
  ],
  [
    ['谷草转氨酶', '23', 'U/L', '15-40'],
    ['谷草转氨酶', 'AST', '23', 'U/L', '15-40', ''],
  ],
  [
    ['葡萄糖', '5.1', 'mmol/L', '3.9-6.1'],
    ['葡萄糖', 'GLU', '5.1', 'mmol/L', '3.9-6.1', ''],
  ],
  [
    ['肌酐', '45', 'μmol/L', '57-111'],
    ['肌酐', 'CREA', '45', 'μmol/L', '57-111', '↓'],
  ],
  [
    ['钾', '4.1', 'mmol/L', '3.5-5.3'],
    ['钾', 'K', '4.1', 'mmol/L', '3.5-5.3', ''],
  ],
];
const HEADER = ['项目', '结果', '单位', '参考值'];

/** 双栏: two tables side by side, each with its own header, the right one from x 860. */
const twoColumns = (rightShift = 0, header: readonly string[] | undefined = HEADER) =>
  titled(page(table(60, 200, NAME_FIRST, header, BLOOD), table(860, 200 + rightShift, NAME_FIRST, header, CHEMISTRY)));

describe('reports of other layouts', () => {
  it('RECOG-01: two tables side by side (双栏) are both read, the left one first', () => {
    expectRead(twoColumns());
  });

  it('RECOG-01: two tables side by side whose rows are half a row apart', () => {
    expectRead(twoColumns(15));
  });

  it('RECOG-01: two tables side by side without headers', () => {
    expectRead(twoColumns(0, undefined));
  });

  it('RECOG-01: two tables side by side on a page turned by 3°, either way', () => {
    expectRead(turned(twoColumns(), 3));
    expectRead(turned(twoColumns(), -3));
  });

  it('RECOG-01: the right table shorter than the left one', () => {
    expectRead(
      titled(
        page(table(60, 200, NAME_FIRST, HEADER, BLOOD), table(860, 200, NAME_FIRST, HEADER, CHEMISTRY.slice(0, 2))),
      ),
    );
  });

  it('RECOG-01: code-first tables with sequence numbers, two side by side', () => {
    const columns = [0, 50, 170, 400, 510, 630];
    const header = ['序号', '代码', '项目名称', '结果', '单位', '参考区间'];
    const codeFirst = (rows: typeof BLOOD, from: number) =>
      rows.map(([[name, value, unit, range], expected], i): readonly [readonly string[], Expected] => [
        [String(from + i), expected[1], name!, value!, unit!, range!],
        expected,
      ]);
    expectRead(
      page(
        table(40, 200, columns, header, codeFirst(BLOOD, 1)),
        table(860, 200, columns, header, codeFirst(CHEMISTRY, 6)),
      ),
    );
  });

  it('RECOG-01: urine tables side by side, qualitative results answered as printed', () => {
    const dipstick: typeof BLOOD = [
      [
        ['尿蛋白', '阴性(-)', '', '阴性'],
        ['尿蛋白', 'PRO', '阴性(-)', '', '阴性', ''],
      ],
      [
        ['尿隐血', '阳性(+)', '', '阴性(-)'],
        ['尿隐血', 'BLD', '阳性(+)', '', '阴性(-)', ''],
      ],
      [
        ['尿比重', '1.020', '', '1.003-1.030'],
        ['尿比重', 'SG', '1.020', '', '1.003-1.030', ''],
      ],
      [
        ['尿葡萄糖', '+-', '', '-'],
        ['尿葡萄糖', 'U-GLU', '+-', '', '-', ''],
      ],
    ];
    const microscopy: typeof BLOOD = [
      [
        ['红细胞', '1-2', '/HP', '0-3'],
        ['红细胞', 'RBC', '1-2', '/HP', '0-3', ''],
      ],
      [
        ['白细胞', '0-1', '个/HP', '0-5'],
        ['白细胞', 'WBC', '0-1', '/HP', '0-5', ''],
      ],
      [
        ['上皮细胞', '偶见', '/HP', ''],
        ['上皮细胞', 'EC', '偶见', '/HP', '', ''],
      ],
    ];
    expectRead(
      titled(page(table(60, 200, NAME_FIRST, HEADER, dipstick), table(860, 200, NAME_FIRST, HEADER, microscopy))),
    );
  });

  it('RECOG-01: code-first tables with sequence numbers and flag letters, side by side without headers', () => {
    const columns = [0, 50, 170, 400, 510, 640];
    const letters = (rows: typeof BLOOD, from: number) =>
      rows.map(([[name, value, unit, range], expected], i): readonly [readonly string[], Expected] => [
        [`${from + i}`, expected[1], name!, value!.replace('↑', ' H').replace('↓', ' L'), unit!, range!],
        expected,
      ]);
    expectRead(
      page(
        table(40, 200, columns, undefined, letters(BLOOD, 1)),
        table(860, 200, columns, undefined, letters(CHEMISTRY, 6)),
      ),
    );
  });

  it('RECOG-01: tables side by side without headers, the right one half a row lower, are read one after the other', () => {
    expectRead(twoColumns(20, undefined));
  });

  it('RECOG-01: three tables side by side, and headers read as one piece each', () => {
    const narrow = [0, 150, 240, 330];
    const third: typeof BLOOD = [
      [
        ['钠', '140', 'mmol/L', '137-147'],
        ['钠', 'NA', '140', 'mmol/L', '137-147', ''],
      ],
      [
        ['氯', '101', 'mmol/L', '99-110'],
        ['氯', 'CL', '101', 'mmol/L', '99-110', ''],
      ],
    ];
    const first: typeof BLOOD = [
      [
        ['白细胞', '6.52', '10^9/L', '3.5-9.5'],
        ['白细胞', 'WBC', '6.52', '10^9/L', '3.5-9.5', ''],
      ],
      [
        ['血小板', '98', '10^9/L', '125-350'],
        ['血小板', 'PLT', '98', '10^9/L', '125-350', '↓'],
      ],
    ];
    const headerAsOne = (x: number): OcrLine => piece('项目 结果 单位 参考值', x, 200);
    const sheet = page(
      table(40, 200, narrow, undefined, first),
      table(580, 200, narrow, undefined, CHEMISTRY.slice(2, 4)),
      table(1120, 200, narrow, undefined, third),
    );
    expectRead({ ...sheet, lines: [headerAsOne(40), headerAsOne(580), headerAsOne(1120), ...sheet.lines] });
  });

  it('RECOG-01: a single table with a method and a remark column is read row by row, nothing split', () => {
    const columns = [0, 260, 370, 490, 640, 780];
    const header = ['检验项目', '结果', '单位', '参考范围', '方法', '备注'];
    expectRead(
      titled(
        table(60, 200, columns, header, [
          [
            ['谷丙转氨酶', '56', 'U/L', '9-50', '速率法', '复查'],
            ['谷丙转氨酶', 'ALT', '56', 'U/L', '9-50', '↑'],
          ],
          [
            ['葡萄糖', '5.1', 'mmol/L', '3.9-6.1', '己糖激酶法', ''],
            ['葡萄糖', 'GLU', '5.1', 'mmol/L', '3.9-6.1', ''],
          ],
          [
            ['尿蛋白', '阴性', '', '阴性', '干化学法', '尿液'],
            ['尿蛋白', 'PRO', '阴性', '', '阴性', ''],
          ],
          [
            ['肌酐', '45', 'μmol/L', '57-111', '酶法', '溶血 5.0'],
            ['肌酐', 'CREA', '45', 'μmol/L', '57-111', '↓'],
          ],
        ]),
      ),
    );
  });

  it("RECOG-01: a left table's range and the right table's name read as one piece are cut apart again", () => {
    for (const header of [HEADER, undefined]) {
      const sheet = twoColumns(0, header);
      const joined = (a: OcrLine, b: OcrLine): OcrLine => ({
        text: `${a.text} ${b.text}`,
        confidence: 0.9,
        box: [a.box[0]!, b.box[1]!, b.box[2]!, a.box[3]!],
      });
      const ranges = sheet.rows.slice(0, 5).map((r) => r.cells[3]!);
      const names = sheet.rows.slice(5).map((r) => r.cells[0]!);
      const lines = [
        ...sheet.lines.filter((l) => !ranges.includes(l) && !names.includes(l)),
        ...ranges.map((range, i) => joined(range, names[i]!)),
      ];
      const rows = parseLabReport(lines);
      expect(fields(rows)).toEqual(sheet.rows.map((r) => r.expected));
      for (const row of rows.slice(0, 5)) expect(row.box![2]).toBeLessThan(800);
      for (const row of rows.slice(5)) expect(row.box![0]).toBeGreaterThan(700);
    }
  });

  it('RECOG-01: each line of the page read as one piece over both tables (as PaddleOCR reads a photograph)', () => {
    const sheet = twoColumns();
    // One piece per line of the page: its pieces' texts joined, its box from the first's left to the last's right.
    const byLine = new Map<number, OcrLine[]>();
    for (const l of sheet.lines) byLine.set(l.box[0]![1], [...(byLine.get(l.box[0]![1]) ?? []), l]);
    const lines = [...byLine.values()].map((ls): OcrLine => {
      const sorted = [...ls].sort((a, b) => a.box[0]![0] - b.box[0]![0]);
      const [first, last] = [sorted[0]!, sorted[sorted.length - 1]!];
      return {
        text: sorted.map((l) => l.text).join(' '),
        confidence: 0.95,
        box: [first.box[0]!, last.box[1]!, last.box[2]!, first.box[3]!],
      };
    });
    const rows = parseLabReport(lines);
    expect(fields(rows)).toEqual(sheet.rows.map((r) => r.expected));
    for (const row of rows.slice(0, 5)) expect(row.box![0]).toBeLessThan(100);
    for (const row of rows.slice(5)) expect(row.box![2]).toBeGreaterThan(1400);
  });

  it('RECOG-01: a result the OCR lost is no row: its reference range under 参考值 is not taken for it', () => {
    const sheet = table(
      60,
      200,
      [0, 200, 330, 450],
      ['项目名称', '结果', '单位', '参考值'],
      [
        [
          ['尿蛋白', '阴性(-)', '', '阴性'],
          ['尿蛋白', 'PRO', '阴性(-)', '', '阴性', ''],
        ],
        [
          ['酮体', '', '', '阴性'],
          ['酮体', 'KET', '', '', '阴性', ''],
        ],
        [
          ['尿胆原', '', '', '正常'],
          ['尿胆原', 'URO', '', '', '正常', ''],
        ],
        [
          ['总胆红素', '', 'μmol/L', '<21'],
          ['总胆红素', 'TBIL', '', 'μmol/L', '<21', ''],
        ],
        [
          ['尿比重', '1.020', '', '1.003-1.030'],
          ['尿比重', 'SG', '1.020', '', '1.003-1.030', ''],
        ],
      ],
    );
    expect(fields(parseLabReport(sheet.lines))).toEqual([sheet.rows[0]!.expected, sheet.rows[4]!.expected]);
  });

  it('RECOG-01: any order of the OCR pieces gives the same rows', () => {
    for (const sheet of [twoColumns(), twoColumns(15), twoColumns(0, undefined), turned(twoColumns(), 2)]) {
      fc.assert(
        fc.property(fc.shuffledSubarray(sheet.lines, { minLength: sheet.lines.length }), (lines) => {
          expectRead(sheet, lines);
        }),
        { numRuns: 25 },
      );
    }
  });
});
