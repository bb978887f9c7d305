import { describe, expect, it } from 'vitest';
import { correctedName, knownAnalyte } from './analytes.js';
import { flagAgainstRange, groupRows, parseLabReport, parseLabRow, type OcrLine } from './lab-report.js';

describe('lab report rows', () => {
  it.each([
    ['白细胞计数 WBC 6.52 10^9/L 3.5-9.5', ['白细胞计数', 'WBC', '6.52', '10^9/L', '3.5-9.5', '']],
    ['2 血红蛋白(HGB) 98 ↓ g/L 130～175', ['血红蛋白', 'HGB', '98', 'g/L', '130-175', '↓']],
    ['*血小板计数 356H ×10^9/L 125--350', ['*血小板计数', 'PLT', '356', '10^9/L', '125-350', '↑']],
    ['中性粒细胞百分比 NEUT% 72.1 % 40-75', ['中性粒细胞百分比', 'NEUT%', '72.1', '%', '40-75', '']],
    ['谷丙转氨酶 ALT 56 U/L 9-50', ['谷丙转氨酶', 'ALT', '56', 'U/L', '9-50', '↑']],
    ['肌酐CREA 45 μmol/L 57-111', ['肌酐', 'CREA', '45', 'μmol/L', '57-111', '↓']],
    ['尿蛋白 PRO 阴性 阴性', ['尿蛋白', 'PRO', '阴性', '', '阴性', '']],
    ['酸碱度 6.0 5.0-8.0', ['酸碱度', 'PH', '6.0', '', '5.0-8.0', '']],
    ['尿隐血 BLD 2+ 阴性', ['尿隐血', 'BLD', '2+', '', '阴性', '']],
    ['C反应蛋白 <0.5 mg/L 0-10', ['C反应蛋白', 'CRP', '<0.5', 'mg/L', '0-10', '']],
    ['白球比 A/G 1.6 1.2-2.4', ['白球比', 'A/G', '1.6', '', '1.2-2.4', '']],
    ['甘油三酯 TG 2.31 mmol/L <1.7', ['甘油三酯', 'TG', '2.31', 'mmol/L', '<1.7', '↑']],
    ['单核细胞百分比 MON0% 13.8 % 3-10', ['单核细胞百分比', 'MONO%', '13.8', '%', '3-10', '↑']],
    ['肌酐 CREA 123 μumol/L 57-111', ['肌酐', 'CREA', '123', 'μmol/L', '57-111', '↑']],
    ['白细胞计数 WBC 6.52 10-9/L 3.5-9.5.', ['白细胞计数', 'WBC', '6.52', '10^9/L', '3.5-9.5', '']],
    ['中性粒细胞百分比 NEUT% 72.1% 40-75', ['中性粒细胞百分比', 'NEUT%', '72.1', '%', '40-75', '']],
    ['平均红细胞体积 MCV 92.3 f L 82-100', ['平均红细胞体积', 'MCV', '92.3', '', '82-100', '']],
    ['肌干 CREA 45 μmol/L 57-111', ['肌酐', 'CREA', '45', 'μmol/L', '57-111', '↓']],
    ['钟 K 4.1 mmol/L 3.5-5.3', ['钾', 'K', '4.1', 'mmol/L', '3.5-5.3', '']],
  ])('reads %s', (text, [name, code, value, unit, range, flag]) => {
    expect(parseLabRow(text)).toMatchObject({ name, code, value, unit, referenceRange: range, flag });
  });

  it.each([
    '某某医院检验报告单血常规',
    '项目名称 代码 结果 单位 参考范围 提示',
    '姓名: 张三 性别: 男 年龄: 45',
    '标本 全血 2024-01-02',
    '检验者 李四 审核者 王五',
    '',
  ])('skips %s', (text) => {
    expect(parseLabRow(text)).toBeUndefined();
  });

  it('flags a value against its range when no flag was read', () => {
    expect(flagAgainstRange('3.2', '3.5-9.5')).toBe('↓');
    expect(flagAgainstRange('9.5', '3.5-9.5')).toBe('');
    expect(flagAgainstRange('12', '<10')).toBe('↑');
    expect(flagAgainstRange('0.8', '>1.0')).toBe('↓');
    expect(flagAgainstRange('阴性', '阴性')).toBe('');
  });

  it('knows analytes by name and code and corrects a name misread by one character', () => {
    expect(knownAnalyte('白细胞')?.code).toBe('WBC');
    expect(knownAnalyte('*hgb')?.code).toBe('HGB');
    expect(correctedName('血小扳计数')).toBe('血小板计数');
    expect(correctedName('血钾')).toBe('血钾');
    expect(correctedName('完全不同的名称')).toBe('完全不同的名称');
  });
});

describe('grouping the OCR pieces into rows', () => {
  const piece = (text: string, x: number, y: number, w: number, slope = 0): OcrLine => ({
    text,
    confidence: 0.9,
    box: [
      [x, y],
      [x + w, y + w * slope],
      [x + w, y + w * slope + 30],
      [x, y + 30],
    ],
  });

  it('joins the cells of a row left to right, also on a page turned by 5°', () => {
    const slope = Math.tan((5 * Math.PI) / 180);
    const cells = (y: number, s: number) =>
      ['白细胞计数', 'WBC', '6.52', '10^9/L', '3.5-9.5'].map((t, i) => piece(t, 40 + i * 250, y + i * 250 * s, 200, s));
    for (const s of [0, slope, -slope]) {
      const lines = [...cells(100, s), ...cells(160, s).map((l) => ({ ...l, text: l.text.replace('6.52', '7.1') }))];
      const rows = groupRows(lines.reverse());
      expect(rows.map((r) => r.text)).toEqual([
        '白细胞计数 WBC 6.52 10^9/L 3.5-9.5',
        '白细胞计数 WBC 7.1 10^9/L 3.5-9.5',
      ]);
    }
  });

  it('reads a report from its pieces', () => {
    const rows = parseLabReport([
      piece('某某医院检验报告单', 300, 20, 400),
      piece('血红蛋白 HGB 98 g/L 130-175', 40, 100, 900),
      piece('白细胞计数', 40, 160, 200),
      piece('6.52', 300, 160, 80),
      piece('3.5-9.5', 600, 160, 100),
      piece('10^9/L', 450, 160, 100),
    ]);
    expect(rows.map((r) => [r.name, r.code, r.value, r.unit, r.referenceRange, r.flag])).toEqual([
      ['血红蛋白', 'HGB', '98', 'g/L', '130-175', '↓'],
      ['白细胞计数', 'WBC', '6.52', '10^9/L', '3.5-9.5', ''],
    ]);
  });
});
