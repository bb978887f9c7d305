import { matchKey } from './match-key.js';

/**
 * Parsers of the MedDRA ASCII distribution files (MedAscii/*.asc). Each line is one record, fields separated by `$`
 * and the line ending with a `$`. The field orders follow the MSSO's "MedDRA Distribution File Format Document"
 * (formerly "MedDRA ASCII and Consecutive Files Documentation", MSSO-DI-6281), section "Table definition"; the
 * translations (中文版 included) use the same files and orders with names in their language. Fields this platform
 * does not use (WHO-ART, HARTS, COSTART, ICD, J-ART codes) are skipped by position. docs/data-quality.md 医学编码.
 */

export const MEDDRA_FILES = [
  'llt.asc',
  'pt.asc',
  'hlt.asc',
  'hlgt.asc',
  'soc.asc',
  'hlt_pt.asc',
  'hlgt_hlt.asc',
  'soc_hlgt.asc',
  'mdhier.asc',
] as const;
export type MeddraFile = (typeof MEDDRA_FILES)[number];
/** The files an auto-code path needs; the HLT/HLGT files and links only add the path's middle levels. */
export const MEDDRA_REQUIRED_FILES = ['llt.asc', 'pt.asc', 'soc.asc', 'mdhier.asc'] as const;

/** One line's fields: split on `$`, the trailing empty field of the closing `$` dropped. */
export function splitAscLine(line: string): string[] {
  const fields = line.split('$');
  if (fields.length > 1 && fields[fields.length - 1] === '') fields.pop();
  return fields.map((f) => f.trim());
}

/** The non-empty lines of a file (CRLF or LF, a byte-order mark dropped). */
export function ascLines(text: string): string[][] {
  return text
    .replace(/^\uFEFF/u, '')
    .split(/\r?\n/u)
    .filter((l) => l.trim() !== '')
    .map(splitAscLine);
}

export interface MeddraLlt {
  code: string;
  name: string;
  ptCode: string;
  /** llt_currency Y: a non-current LLT is kept for old data and offered in search, but never auto-coded. */
  current: boolean;
}
export interface MeddraNamed {
  code: string;
  name: string;
}
export interface MeddraPt extends MeddraNamed {
  /** pt_soc_code: the PT's primary SOC. */
  socCode: string;
}
/** One row of mdhier.asc: a PT's path through HLT and HLGT to one SOC, and whether that SOC is its primary. */
export interface MeddraPath {
  ptCode: string;
  hltCode: string;
  hlgtCode: string;
  socCode: string;
  ptName: string;
  hltName: string;
  hlgtName: string;
  socName: string;
  primary: boolean;
}

const need = (file: string, fields: string[], n: number, line: number) => {
  if (fields.length < n || fields.slice(0, n).some((f, i) => i < 2 && f === '')) {
    throw new MeddraFormatError(file, line);
  }
};

/** A line that does not have the fields its file defines: the file is not the MedDRA ASCII format. */
export class MeddraFormatError extends Error {
  constructor(
    readonly file: string,
    readonly line: number,
  ) {
    super(`${file} 第 ${line} 行不符合 MedDRA ASCII 格式`);
  }
}

/** llt.asc: llt_code $ llt_name $ pt_code $ llt_whoart_code $ llt_harts_code $ llt_costart_sym $ llt_icd9_code $ llt_icd9cm_code $ llt_icd10_code $ llt_currency $ llt_jart_code */
export function parseLlt(text: string): MeddraLlt[] {
  return ascLines(text).map((f, i) => {
    need('llt.asc', f, 3, i + 1);
    // llt_currency is the 10th field; an abridged file without it reads as current.
    return { code: f[0]!, name: f[1]!, ptCode: f[2]!, current: (f[9] ?? 'Y').toUpperCase() !== 'N' };
  });
}

/** pt.asc: pt_code $ pt_name $ null_field $ pt_soc_code $ pt_whoart_code … */
export function parsePt(text: string): MeddraPt[] {
  return ascLines(text).map((f, i) => {
    need('pt.asc', f, 4, i + 1);
    return { code: f[0]!, name: f[1]!, socCode: f[3]! };
  });
}

/** hlt.asc (hlt_code $ hlt_name $ …), hlgt.asc (hlgt_code $ hlgt_name $ …), soc.asc (soc_code $ soc_name $ soc_abbrev $ …). */
export function parseNamed(file: 'hlt.asc' | 'hlgt.asc' | 'soc.asc', text: string): MeddraNamed[] {
  return ascLines(text).map((f, i) => {
    need(file, f, 2, i + 1);
    return { code: f[0]!, name: f[1]! };
  });
}

/** hlt_pt.asc (hlt_code $ pt_code), hlgt_hlt.asc (hlgt_code $ hlt_code), soc_hlgt.asc (soc_code $ hlgt_code): parent, child. */
export function parseLinks(file: 'hlt_pt.asc' | 'hlgt_hlt.asc' | 'soc_hlgt.asc', text: string) {
  return ascLines(text).map((f, i) => {
    need(file, f, 2, i + 1);
    return { parent: f[0]!, child: f[1]! };
  });
}

/** mdhier.asc: pt_code $ hlt_code $ hlgt_code $ soc_code $ pt_name $ hlt_name $ hlgt_name $ soc_name $ soc_abbrev $ null_field $ pt_soc_code $ primary_soc_fg */
export function parseMdhier(text: string): MeddraPath[] {
  return ascLines(text).map((f, i) => {
    need('mdhier.asc', f, 8, i + 1);
    return {
      ptCode: f[0]!,
      hltCode: f[1]!,
      hlgtCode: f[2]!,
      socCode: f[3]!,
      ptName: f[4]!,
      hltName: f[5]!,
      hlgtName: f[6]!,
      socName: f[7]!,
      primary: (f[11] ?? '').toUpperCase() === 'Y',
    };
  });
}

/** A term as the platform stores it (coding_terms), whatever the dictionary. */
export interface DictionaryTerm {
  level: 'llt' | 'pt' | 'hlt' | 'hlgt' | 'soc' | 'drug';
  code: string;
  name: string;
  matchKey: string;
  parentCode: string | null;
  current: boolean;
  extra: Record<string, unknown>;
}

/** The codes a coded item carries: MedDRA's LLT → PT → primary SOC path (HLT/HLGT when known), or a drug and its ATC. */
export interface MeddraCoding {
  kind: 'meddra';
  lltCode: string;
  lltName: string;
  ptCode: string;
  ptName: string;
  hltCode: string | null;
  hltName: string | null;
  hlgtCode: string | null;
  hlgtName: string | null;
  socCode: string;
  socName: string;
}

/**
 * The terms of one MedDRA load: every level with its name's match key; a PT carries its primary path (from
 * mdhier.asc's primary row, else pt_soc_code) in `extra`, so coding an LLT is two lookups (LLT, then its PT).
 */
export function meddraTerms(files: Partial<Record<MeddraFile, string>>): DictionaryTerm[] {
  for (const f of MEDDRA_REQUIRED_FILES) {
    if (files[f] === undefined) throw new MeddraMissingFileError(f);
  }
  const socs = parseNamed('soc.asc', files['soc.asc']!);
  const socName = new Map(socs.map((s) => [s.code, s.name]));
  const primaryPath = new Map<string, MeddraPath>();
  for (const p of parseMdhier(files['mdhier.asc']!)) {
    if (p.primary || !primaryPath.has(p.ptCode)) primaryPath.set(p.ptCode, p);
  }
  const terms: DictionaryTerm[] = [];
  const term = (
    level: DictionaryTerm['level'],
    code: string,
    name: string,
    parentCode: string | null,
    current = true,
    extra: Record<string, unknown> = {},
  ) => terms.push({ level, code, name, matchKey: matchKey(name), parentCode, current, extra });
  for (const s of socs) term('soc', s.code, s.name, null);
  const hlgtOf = new Map<string, string>();
  if (files['hlgt.asc']) {
    const socOfHlgt = new Map(
      (files['soc_hlgt.asc'] ? parseLinks('soc_hlgt.asc', files['soc_hlgt.asc']) : []).map((l) => [l.child, l.parent]),
    );
    for (const h of parseNamed('hlgt.asc', files['hlgt.asc'])) {
      term('hlgt', h.code, h.name, socOfHlgt.get(h.code) ?? null);
    }
  }
  if (files['hlt.asc']) {
    for (const l of files['hlgt_hlt.asc'] ? parseLinks('hlgt_hlt.asc', files['hlgt_hlt.asc']) : []) {
      hlgtOf.set(l.child, l.parent);
    }
    for (const h of parseNamed('hlt.asc', files['hlt.asc'])) term('hlt', h.code, h.name, hlgtOf.get(h.code) ?? null);
  }
  for (const p of parsePt(files['pt.asc']!)) {
    const path = primaryPath.get(p.code);
    const socCode = path?.primary ? path.socCode : p.socCode || path?.socCode || '';
    term('pt', p.code, p.name, socCode || null, true, {
      hltCode: path?.hltCode ?? null,
      hltName: path?.hltName ?? null,
      hlgtCode: path?.hlgtCode ?? null,
      hlgtName: path?.hlgtName ?? null,
      socCode,
      socName: socName.get(socCode) ?? path?.socName ?? '',
    });
  }
  for (const l of parseLlt(files['llt.asc']!)) term('llt', l.code, l.name, l.ptCode, l.current);
  return terms;
}

export class MeddraMissingFileError extends Error {
  constructor(readonly file: string) {
    super(`缺少 MedDRA 文件 ${file}`);
  }
}

/** The coding of an LLT through its PT's stored path. */
export function meddraCodingOf(
  llt: Pick<DictionaryTerm, 'code' | 'name'>,
  pt: Pick<DictionaryTerm, 'code' | 'name' | 'extra'>,
): MeddraCoding {
  const x = pt.extra as Record<string, string | null>;
  return {
    kind: 'meddra',
    lltCode: llt.code,
    lltName: llt.name,
    ptCode: pt.code,
    ptName: pt.name,
    hltCode: x.hltCode ?? null,
    hltName: x.hltName ?? null,
    hlgtCode: x.hlgtCode ?? null,
    hlgtName: x.hlgtName ?? null,
    socCode: x.socCode ?? '',
    socName: x.socName ?? '',
  };
}
