/**
 * Scores what recognition read from a sheet against what the sheet printed, two ways:
 * - values: each printed row found among the rows read (by name, code or known analyte) with the same value
 *   (numbers equal, a qualitative grade spelled any way, a count per field with or without its unit);
 * - items: a CRF built for the sheet (one item per printed analyte, titled `白细胞计数(WBC)`: a number item for a
 *   number, a single choice among the scale's grades for a qualitative row, a text item for colour, clarity and
 *   counts per field) filled as the form would be (recognitionAnswer → recognisedEntries → matchRecognised).
 *   Each item is right, WRONG (a value that differs from the printed one), offered (a fill whose `verdict` is
 *   'offer': shown for the nurse to confirm, not filled), or missed.
 */
import {
  knownAnalyte,
  matchRecognised,
  normaliseLabel,
  recognisedEntries,
  recognitionAnswer,
  type CrfDefinition,
  type CrfNode,
  type LabRow,
} from '@ecrf/core';
import { analyteOf, SCALES } from './analytes.js';
import type { TruthRow } from './content.js';

export interface ExpectedItem {
  itemName: string;
  title: string;
  row: TruthRow;
  /** The value the item should hold, as the form stores it (a choice's option value). */
  want: string;
}

const squash = (s: string) => s.normalize('NFKC').replace(/\s+/g, '').toLowerCase();
const perFieldUnit = /\/(hp|lp)$/i;

/** The grade of a qualitative value, whatever its spelling, or undefined. */
function gradeOf(row: TruthRow, value: string): string | undefined {
  const scale = SCALES[analyteOf(row.analyte)?.scale ?? 'dipstick'];
  const v = squash(value);
  const at = scale.spellings.findIndex(
    (spellings, i) => squash(scale.grades[i]!) === v || spellings.some((s) => squash(s) === v),
  );
  return at >= 0 ? scale.grades[at] : undefined;
}

/** Whether a value read means the printed one (the value field of a row). */
export function sameValue(row: TruthRow, value: string): boolean {
  if (row.kind === 'number') {
    const v = value.normalize('NFKC').trim();
    return /^[-+]?\d+(?:\.\d+)?$/.test(v) && Number(v) === Number(row.value);
  }
  if (row.kind === 'choice') return gradeOf(row, value) === row.grade;
  const read = squash(value);
  const printed = squash(row.value);
  return read === printed || read === printed.replace(perFieldUnit, '') || read.replace(perFieldUnit, '') === printed;
}

/** The CRF a study would build for this sheet's analytes, and what each item should be filled with. */
export function sheetDefinition(title: string, rows: readonly TruthRow[]) {
  const items: ExpectedItem[] = [];
  const children: CrfNode[] = rows.map((row, i) => {
    const analyte = analyteOf(row.analyte);
    const usual = (analyte?.names[0] ?? row.name).replace(/^\*+/, '');
    const itemTitle = row.analyte.includes('(') ? usual : `${usual}(${row.analyte})`;
    const itemName = `item${i + 1}`;
    const node: CrfNode = { name: itemName, title: itemTitle, type: 'input', option: {}, children: [] };
    let want = row.value;
    if (row.kind === 'number') {
      node.type = (analyte?.decimals ?? 1) === 0 ? 'int' : 'real';
    } else if (row.kind === 'choice') {
      const grades = SCALES[analyte?.scale ?? 'dipstick'].grades;
      node.type = 'radio';
      node.option = { optionsText: grades.join(','), optionsValue: grades.map((_, g) => String(g + 1)).join(',') };
      want = String((grades as readonly string[]).indexOf(row.grade!) + 1);
    }
    items.push({ itemName, title: itemTitle, row, want });
    return node;
  });
  const definition: CrfDefinition = {
    title,
    option: { identifyType: 2 },
    children: [{ name: 'lab', title, type: 'section', option: {}, children }],
  };
  return { definition, items };
}

export interface WrongFill {
  item: string;
  printed: string;
  filled: string;
  /** The row read that filled it: its name and value as read. */
  from: string;
}

export interface SheetScore {
  /** Values: rows printed, rows read, printed rows found with the right value. */
  printed: number;
  answered: number;
  valuesRight: number;
  /** Items of the sheet's CRF. */
  items: number;
  right: number;
  wrong: number;
  offered: number;
  /** Offered with the printed value. */
  offeredRight: number;
  missed: number;
  wrongFills: WrongFill[];
  missedItems: string[];
  /** Printed rows no row read was found for, or found with another value. */
  valueMisses: string[];
}

const analyteCode = (name: string, code: string) =>
  knownAnalyte(name)?.code ?? (code ? knownAnalyte(code)?.code : undefined);

function sameRow(truth: TruthRow, read: LabRow): boolean {
  if (normaliseLabel(read.name.replace(/^\*+/, '')) === normaliseLabel(truth.name.replace(/^\*+/, ''))) return true;
  const code = normaliseLabel(read.code);
  if (code && (code === normaliseLabel(truth.code) || code === normaliseLabel(truth.analyte))) return true;
  const a = analyteCode(read.name, '');
  return a !== undefined && a === analyteCode(truth.name, truth.analyte);
}

/** Scores the rows read from a sheet (undefined: the sheet was refused, every item missed). */
export function scoreSheet(title: string, truth: readonly TruthRow[], read: readonly LabRow[] | undefined): SheetScore {
  const rows = read ?? [];
  const score: SheetScore = {
    printed: truth.length,
    answered: rows.length,
    valuesRight: 0,
    items: truth.length,
    right: 0,
    wrong: 0,
    offered: 0,
    offeredRight: 0,
    missed: 0,
    wrongFills: [],
    missedItems: [],
    valueMisses: [],
  };
  const used = new Set<number>();
  for (const row of truth) {
    const at = rows.findIndex((r, i) => !used.has(i) && sameRow(row, r));
    if (at >= 0) used.add(at);
    if (at >= 0 && sameValue(row, rows[at]!.value)) score.valuesRight += 1;
    else {
      score.valueMisses.push(
        `${row.name} ${row.value}${at >= 0 ? ` read ${JSON.stringify(rows[at]!.value)}` : ': no row'}`,
      );
    }
  }

  const { definition, items } = sheetDefinition(title, truth);
  const answer = recognitionAnswer(2, rows, { fileKey: '', recognitionId: 0 });
  const { filled } = matchRecognised(definition, recognisedEntries(2, answer));
  const done = new Set<string>();
  for (const fill of filled) {
    const item = items.find((i) => i.itemName === fill.itemName);
    if (!item) continue;
    done.add(item.itemName);
    const right =
      item.row.kind === 'text'
        ? sameValue(item.row, fill.value)
        : item.row.kind === 'number'
          ? Number(fill.value) === Number(item.want)
          : fill.value === item.want;
    if ((fill as { verdict?: string }).verdict === 'offer') {
      score.offered += 1;
      if (right) score.offeredRight += 1;
    } else if (right) {
      score.right += 1;
    } else {
      score.wrong += 1;
      score.wrongFills.push({
        item: item.title,
        printed: item.row.value,
        filled: fill.value,
        from: `${fill.entry.name} ${fill.entry.value}`,
      });
    }
  }
  for (const item of items) if (!done.has(item.itemName)) score.missedItems.push(`${item.title} ${item.row.value}`);
  score.missed = score.missedItems.length;
  return score;
}
