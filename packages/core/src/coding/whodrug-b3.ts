import { matchKey } from './match-key.js';
import type { DictionaryTerm } from './meddra.js';
import { WhodrugFormatError } from './whodrug.js';

/**
 * WHODrug Global's B3 format: fixed-width text files. UMC's own file description is licensed material and could not
 * be read; the positions below are those a public, widely used open-source reader takes (CDISC's
 * cdisc-rules-engine, models/dictionaries/whodrug: drug_dict.py, atc_classification.py, atc_text.py), 0-based:
 *
 * - DD.txt (drug names), one name a line: drug record number [0,6), sequence number 1 [6,8), sequence number 2
 *   [8,11), check digit [11], fields this platform does not use [12,30), the drug name from 30 to the line's end.
 *   The drug code is the record number with both sequence numbers (11 characters, as coded in SDTM's CMDECOD
 *   companions); every name of a drug code is a match target.
 * - DDA.txt (a drug's ATC codes): drug record number [0,6), sequence number 1 [6,8), sequence number 2 [8,11),
 *   check digit [11], ATC code [12,19). ATC codes are given per record number and sequence number 1, so every
 *   sequence number 2 (trade name) of that active ingredient carries them.
 * - INA.txt (ATC texts): ATC code [0,7), ATC level [7], the text from 8 to the line's end.
 *
 * Assumed beyond that reader: names run to the end of the line (trailing blanks dropped), so B3's longer name fields
 * need no width; when a drug has several ATC codes the first line of DDA.txt names the one coded, the others are kept
 * in the term (`atcCodes`). C3 (MP.txt and its companions) is not read: its positions are in no public source found.
 */
export const WHODRUG_B3_FILES = ['dd.txt', 'dda.txt', 'ina.txt'] as const;

export interface WhodrugB3Name {
  drugCode: string;
  recordNumber: string;
  seq1: string;
  seq2: string;
  name: string;
}

/** Lines of a fixed-width file: CRLF or LF, a byte-order mark dropped, blank lines skipped; trailing blanks kept. */
function fixedLines(text: string): string[] {
  return text
    .replace(/^\uFEFF/u, '')
    .split(/\r?\n/u)
    .filter((l) => l.trim() !== '');
}

const bad = (file: string, line: number) => new WhodrugFormatError(`${file} 第 ${line} 行不符合 WHODrug B3 格式`);

export function parseB3Drugs(text: string): WhodrugB3Name[] {
  return fixedLines(text).map((l, i) => {
    const recordNumber = l.slice(0, 6).trim();
    const seq1 = l.slice(6, 8).trim();
    const seq2 = l.slice(8, 11).trim();
    const name = l.slice(30).trim();
    if (recordNumber.length !== 6 || seq1.length !== 2 || seq2.length !== 3 || !name) throw bad('DD.txt', i + 1);
    return { drugCode: recordNumber + seq1 + seq2, recordNumber, seq1, seq2, name };
  });
}

export function parseB3DrugAtc(text: string): Array<{ recordNumber: string; seq1: string; atcCode: string }> {
  return fixedLines(text).map((l, i) => {
    const recordNumber = l.slice(0, 6).trim();
    const seq1 = l.slice(6, 8).trim();
    const atcCode = l.slice(12, 19).trim();
    if (recordNumber.length !== 6 || seq1.length !== 2 || !atcCode) throw bad('DDA.txt', i + 1);
    return { recordNumber, seq1, atcCode };
  });
}

export function parseB3AtcTexts(text: string): Array<{ atcCode: string; level: number; text: string }> {
  return fixedLines(text).map((l, i) => {
    const atcCode = l.slice(0, 7).trim();
    const level = Number(l.slice(7, 8));
    if (!atcCode || !Number.isInteger(level) || level < 1 || level > 5) throw bad('INA.txt', i + 1);
    return { atcCode, level, text: l.slice(8).trim() };
  });
}

/** The drug terms of a B3 load, one per distinct (drug code, name), with the ATC code and text coded with it. */
export function whodrugB3Terms(files: { dd: string; dda: string; ina: string }): DictionaryTerm[] {
  const atcText = new Map(parseB3AtcTexts(files.ina).map((a) => [a.atcCode, a.text]));
  const atcOf = new Map<string, string[]>();
  for (const a of parseB3DrugAtc(files.dda)) {
    const key = a.recordNumber + a.seq1;
    const codes = atcOf.get(key) ?? [];
    if (!codes.includes(a.atcCode)) codes.push(a.atcCode);
    atcOf.set(key, codes);
  }
  const seen = new Set<string>();
  const terms: DictionaryTerm[] = [];
  for (const d of parseB3Drugs(files.dd)) {
    const key = `${d.drugCode}\u0000${d.name}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const atcCodes = atcOf.get(d.recordNumber + d.seq1) ?? [];
    const atcCode = atcCodes[0] ?? '';
    terms.push({
      level: 'drug',
      code: d.drugCode,
      name: d.name,
      matchKey: matchKey(d.name),
      parentCode: null,
      current: true,
      extra: { atcCode, atcText: atcText.get(atcCode) ?? '', atcCodes },
    });
  }
  return terms;
}
