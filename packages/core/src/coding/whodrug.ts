import { matchKey } from './match-key.js';
import type { DictionaryTerm } from './meddra.js';

/**
 * WHODrug as the platform's own CSV, for any source (B3's files are read by whodrug-b3.ts; C3's layout was found in
 * no public material, docs/data-quality.md 医学编码): a header row with
 * `drug_code,drug_name,atc_code,atc_text` (any order, extra columns ignored), one drug name per row. A drug with
 * several names (trade names, synonyms) has several rows with one drug_code; each is a match target.
 */
export const WHODRUG_COLUMNS = ['drug_code', 'drug_name', 'atc_code', 'atc_text'] as const;

export interface WhodrugCoding {
  kind: 'whodrug';
  drugCode: string;
  drugName: string;
  atcCode: string;
  atcText: string;
}

export class WhodrugFormatError extends Error {
  constructor(message: string) {
    super(message);
  }
}

/** RFC 4180 rows: quoted fields may hold commas, quotes ("") and line breaks. */
export function csvRows(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  const src = text.replace(/^\uFEFF/u, '');
  for (let i = 0; i < src.length; i++) {
    const c = src[i]!;
    if (quoted) {
      if (c === '"' && src[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && src[i + 1] === '\n') i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += c;
  }
  if (field !== '' || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows.filter((r) => r.some((f) => f.trim() !== ''));
}

/** The drug terms of a WHODrug CSV, one per distinct (drug_code, drug_name). */
export function whodrugTerms(text: string): DictionaryTerm[] {
  const [header, ...rows] = csvRows(text);
  const index = new Map((header ?? []).map((h, i) => [h.trim().toLowerCase(), i]));
  for (const c of WHODRUG_COLUMNS) {
    if (!index.has(c)) throw new WhodrugFormatError(`WHODrug 文件缺少列 ${c}`);
  }
  const at = (r: string[], c: (typeof WHODRUG_COLUMNS)[number]) => (r[index.get(c)!] ?? '').trim();
  const seen = new Set<string>();
  const terms: DictionaryTerm[] = [];
  rows.forEach((r, i) => {
    const code = at(r, 'drug_code');
    const name = at(r, 'drug_name');
    if (!code || !name) throw new WhodrugFormatError(`WHODrug 文件第 ${i + 2} 行缺少 drug_code 或 drug_name`);
    const key = `${code}\u0000${name}`;
    if (seen.has(key)) return;
    seen.add(key);
    terms.push({
      level: 'drug',
      code,
      name,
      matchKey: matchKey(name),
      parentCode: null,
      current: true,
      extra: { atcCode: at(r, 'atc_code'), atcText: at(r, 'atc_text') },
    });
  });
  return terms;
}

export function whodrugCodingOf(term: Pick<DictionaryTerm, 'code' | 'name' | 'extra'>): WhodrugCoding {
  const x = term.extra as Record<string, string | undefined>;
  return {
    kind: 'whodrug',
    drugCode: term.code,
    drugName: term.name,
    atcCode: x.atcCode ?? '',
    atcText: x.atcText ?? '',
  };
}
