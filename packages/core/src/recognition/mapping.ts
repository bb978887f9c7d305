import type { CrfDefinition, CrfNode } from '../crf/crf-definition.schema.js';
import type { RangeOverride } from '../crf/lab-ranges.js';
import { knownAnalyte, normaliseLabel } from './analytes.js';
import type { LabFlag, LabRow } from './lab-report.js';
import { itemLimitsOf, judgeRecognised, type JudgedRow, type OfferReason } from './plausibility.js';
import { isQualitative, qualitativeOption } from './qualitative.js';

/** The identify type whose answer is a data set under `data.data.ret` (forms §3, RECOG-09). */
export const DATA_SET_IDENTIFY_TYPE = 1;

/** A row of the type-1 answer (`data.data.ret`). */
export interface RecognitionRetRow {
  word_name: string;
  word: string;
  unit: string;
  referenceRange: string;
  flag: LabFlag;
  probability: number;
  /** The row's crop of the report image (a `data:image/jpeg;base64,…` URL), when the server cut one. */
  crop?: string;
}

/** A row of the other types' answer (`data.items`). */
export interface RecognitionItem {
  projectName: string;
  projectCode: string;
  result: string;
  unit: string;
  referenceRange: string;
  flag: LabFlag;
  probability: number;
  /** The row's crop of the report image (a `data:image/jpeg;base64,…` URL), when the server cut one. */
  crop?: string;
}

/** The `data` of a successful recognition answer, in the spec's shape for its type. */
export type RecognitionData =
  | { data: { ret: RecognitionRetRow[] }; fileKey: string; recognitionId: number }
  | { items: RecognitionItem[]; fileKey: string; recognitionId: number };

const round2 = (n: number) => Math.round(n * 100) / 100;

/** The server's answer for recognised rows: `data.data.ret` for type 1, `data.items` otherwise. */
export function recognitionAnswer(
  type: number,
  rows: readonly LabRow[],
  source: { fileKey: string; recognitionId: number },
): RecognitionData {
  if (type === DATA_SET_IDENTIFY_TYPE) {
    const ret = rows.map((r) => ({
      word_name: r.name,
      word: r.value,
      unit: r.unit,
      referenceRange: r.referenceRange,
      flag: r.flag,
      probability: round2(r.confidence),
      ...(r.crop ? { crop: r.crop } : {}),
    }));
    return { data: { ret }, ...source };
  }
  const items = rows.map((r) => ({
    projectName: r.name,
    projectCode: r.code,
    result: r.value,
    unit: r.unit,
    referenceRange: r.referenceRange,
    flag: r.flag,
    probability: round2(r.confidence),
    ...(r.crop ? { crop: r.crop } : {}),
  }));
  return { items, ...source };
}

/** One recognised value under the name the form matches it by: what the judgement reads, and the row's crop. */
export interface RecognisedEntry extends JudgedRow {
  /** The row's crop of the report image (an image `data:` URL), when the answer gave one. */
  crop?: string;
}

const str = (v: unknown) => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');
const record = (v: unknown): Record<string, unknown> =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

/** The row's probability and crop, passed through when well formed: a crop is an image data URL, never a link. */
function extras(row: Record<string, unknown>): Pick<RecognisedEntry, 'probability' | 'crop'> {
  const p =
    typeof row.probability === 'string' && row.probability.trim() !== '' ? Number(row.probability) : row.probability;
  return {
    ...(typeof p === 'number' && Number.isFinite(p) ? { probability: p } : {}),
    ...(typeof row.crop === 'string' && /^data:image\/[a-z]+;base64,/.test(row.crop) ? { crop: row.crop } : {}),
  };
}

/**
 * The recognised data set from a recognition answer's `data` (RECOG-09, RECOG-10). Type 1 reads
 * `data.data.ret` (`word_name` → `word`). Other types read `data.items`: a leading `*` is stripped from the
 * project name, and a name an earlier item already took gets its project code appended; an item whose name is
 * still taken after that is dropped (the first wins).
 */
export function recognisedEntries(type: number, data: unknown): RecognisedEntry[] {
  const body = record(data);
  if (Number(type) === DATA_SET_IDENTIFY_TYPE) {
    const ret = record(body.data).ret;
    if (!Array.isArray(ret)) return [];
    const seen = new Set<string>();
    const out: RecognisedEntry[] = [];
    for (const raw of ret) {
      const row = record(raw);
      const name = str(row.word_name).trim();
      if (!name || seen.has(name)) continue;
      seen.add(name);
      out.push({
        name,
        code: '',
        value: str(row.word).trim(),
        unit: str(row.unit),
        referenceRange: str(row.referenceRange),
        flag: str(row.flag),
        ...extras(row),
      });
    }
    return out;
  }
  const items = body.items;
  if (!Array.isArray(items)) return [];
  const taken = new Set<string>();
  const out: RecognisedEntry[] = [];
  for (const raw of items) {
    const item = record(raw);
    const code = str(item.projectCode).trim();
    let name = str(item.projectName).trim().replace(/^\*+/, '').trim();
    if (!name) continue;
    if (taken.has(name)) name = `${name}${code}`;
    if (taken.has(name)) continue;
    taken.add(name);
    out.push({
      name,
      code,
      value: str(item.result).trim(),
      unit: str(item.unit),
      referenceRange: str(item.referenceRange),
      flag: str(item.flag),
      ...extras(item),
    });
  }
  return out;
}

/** An item's alias list: an array of strings, or one string separated by commas (docs/crf-format.md). */
export function itemAliases(node: CrfNode): string[] {
  const raw: unknown = node.option.aliases;
  const list = Array.isArray(raw) ? raw.map(str) : typeof raw === 'string' ? raw.split(/[,，、;；]/) : [];
  return list.map((a) => a.trim()).filter(Boolean);
}

/** Item types a recognised value fills: text, numbers and single choices. */
const FILLABLE = new Set(['input', 'textarea', 'text', 'int', 'real', 'number', 'radio', 'select']);
const NUMERIC = new Set(['int', 'real', 'number']);
/** Containers whose items sit directly in the form's values (list groups and tables hold rows: not filled). */
const DESCEND = new Set(['section', 'group', 'card', 'title']);

function fillableItems(nodes: readonly CrfNode[], out: CrfNode[] = []): CrfNode[] {
  for (const node of nodes) {
    if (node.option.hidden === true || node.option.hidden === 1 || node.option.hidden === '1') continue;
    if (FILLABLE.has(node.type) && node.name) out.push(node);
    else if (DESCEND.has(node.type)) fillableItems(node.children, out);
  }
  return out;
}

/** The value to put into an item, or undefined when the recognised value does not fit it. */
function valueFor(node: CrfNode, value: string): string | undefined {
  if (!value) return undefined;
  if (NUMERIC.has(node.type)) {
    const m = /^[<>≤≥]?\s*([-+]?\d+(?:\.\d+)?)$/.exec(value.normalize('NFKC').trim());
    if (!m) return undefined;
    if (node.type === 'int' && !/^[-+]?\d+$/.test(m[1]!)) return undefined;
    return m[1]!;
  }
  if (node.type === 'radio' || node.type === 'select') {
    const values = str(node.option.optionsValue).split(',');
    const texts = str(node.option.optionsText).split(',');
    // A qualitative result finds its option by what it says, never by a looser text match: normalising away
    // brackets and case could let one printing of a grade meet an option of another.
    if (isQualitative(value)) {
      const byText = qualitativeOption(value, texts);
      const at = byText >= 0 ? byText : qualitativeOption(value, values);
      return at >= 0 && values[at] !== undefined ? values[at]!.trim() : undefined;
    }
    const wanted = normaliseLabel(value);
    const at = texts.findIndex((t) => normaliseLabel(t) === wanted);
    if (at >= 0 && values[at] !== undefined) return values[at]!.trim();
    const byValue = values.findIndex((v) => normaliseLabel(v) === wanted);
    return byValue >= 0 ? values[byValue]!.trim() : undefined;
  }
  return value;
}

/**
 * A recognised value for one form item, with the verdict whether it may be filled.
 *
 * - `verdict: 'fill'`: the row's name, value, unit, reference range and flag agree with each other, with the
 *   analyte and with the item (plausibility.ts); `reasons` is empty. The dialog shows it checked.
 * - `verdict: 'offer'`: something is doubtful; `reasons` lists each doubt once, in the order of OFFER_REASONS
 *   (识别置信度低, 单位与项目不符, 参考范围与该项目不符，可能错行 …). The dialog shows it unchecked with its
 *   reasons, beside `entry.crop`, and fills it only when the nurse ticks it.
 *
 * `value` is what goes into the item (a number for a numeric item, a choice's option value), `entry` the row as
 * recognised (its unit, range, flag, `probability` and `crop` when the answer gave them).
 */
export interface RecognisedFill {
  /** The item's name: the key of its value in the form. */
  itemName: string;
  itemTitle: string;
  value: string;
  entry: RecognisedEntry;
  /** How the entry found the item. */
  matchedBy: 'name' | 'alias' | 'code' | 'analyte';
  verdict: 'fill' | 'offer';
  reasons: OfferReason[];
}

/**
 * Which form items the recognised entries fill (RECOG-01). An entry finds an item by the item's title or name,
 * then by one of its aliases, then by code (the entry's code against the item's name, aliases, or a code in
 * brackets in its title), then by naming the same known analyte (白细胞 and 白细胞计数 are both WBC). Each item is
 * taken once and each entry used once; values that do not fit the item at all (text into a number, a choice the
 * item lacks) are left out, as unmatched. A qualitative result fills the option saying the same (`qualitativeOption`:
 * `阴性(-)` and `-` fill 阴性, `+-` fills ±, `2+` fills the one 阳性; a trace never fills 阴性 or 阳性). Every fill carries `verdict` and `reasons` from `judgeRecognised`
 * against the item (its validate.min/max, units, reference ranges — the patient's site range where `siteRanges` has
 * one — and the analytes it names): a wrong value is
 * worse than none, so a doubtful one is only offered. Nothing is saved here: the page fills the values the nurse
 * keeps and marks them 识别.
 */
export function matchRecognised(
  form: CrfDefinition | readonly CrfNode[],
  entries: readonly RecognisedEntry[],
  /** 参考范围 (issue 37): the patient's site ranges by item name, as the form's save would judge by (rangesForForm). */
  siteRanges: Readonly<Record<string, RangeOverride>> = {},
): { filled: RecognisedFill[]; unmatched: RecognisedEntry[] } {
  const items = fillableItems(Array.isArray(form) ? (form as readonly CrfNode[]) : (form as CrfDefinition).children);
  const keysOf = (node: CrfNode) => {
    const title = node.title;
    const bracket = /[(（]([^()（）]+)[)）]\s*$/.exec(title)?.[1];
    const titleBare = title.replace(/[(（][^()（）]*[)）]\s*$/, '');
    const aliases = itemAliases(node);
    const names = [title, titleBare, node.name].map(normaliseLabel).filter(Boolean);
    const analytes = [titleBare, node.name, ...aliases, ...(bracket ? [bracket] : [])]
      .map((k) => knownAnalyte(k)?.code)
      .filter((c): c is string => Boolean(c));
    return {
      name: new Set(names),
      alias: new Set(aliases.map(normaliseLabel)),
      code: new Set([node.name, ...aliases, ...(bracket ? [bracket] : [])].map(normaliseLabel).filter(Boolean)),
      analyte: new Set(analytes),
      analytes: [...new Set(analytes)],
    };
  };
  const keyed = items.map((node) => ({ node, keys: keysOf(node) }));
  const usedItems = new Set<string>();
  const usedEntries = new Set<number>();
  const filled: RecognisedFill[] = [];

  const passes: RecognisedFill['matchedBy'][] = ['name', 'alias', 'code', 'analyte'];
  for (const pass of passes) {
    entries.forEach((entry, index) => {
      if (usedEntries.has(index)) return;
      const name = normaliseLabel(entry.name);
      const code = normaliseLabel(entry.code);
      const analyteCode = knownAnalyte(entry.name)?.code ?? (entry.code ? knownAnalyte(entry.code)?.code : undefined);
      for (const { node, keys } of keyed) {
        if (usedItems.has(node.name)) continue;
        const hit =
          pass === 'name'
            ? keys.name.has(name)
            : pass === 'alias'
              ? keys.alias.has(name) || (code !== '' && keys.alias.has(code))
              : pass === 'code'
                ? code !== '' && keys.code.has(code)
                : analyteCode !== undefined && keys.analyte.has(analyteCode);
        if (!hit) continue;
        const value = valueFor(node, entry.value);
        if (value === undefined) continue;
        usedItems.add(node.name);
        usedEntries.add(index);
        const { verdict, reasons } = judgeRecognised(
          entry,
          itemLimitsOf(node, keys.analytes, Object.hasOwn(siteRanges, node.name) ? siteRanges[node.name] : undefined),
        );
        filled.push({ itemName: node.name, itemTitle: node.title, value, entry, matchedBy: pass, verdict, reasons });
        return;
      }
    });
  }
  return { filled, unmatched: entries.filter((_, i) => !usedEntries.has(i)) };
}
