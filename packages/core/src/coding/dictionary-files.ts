import type { CodingKind } from './coding-contract.js';
import { MEDDRA_FILES, meddraTerms, type DictionaryTerm, type MeddraFile } from './meddra.js';
import { whodrugTerms } from './whodrug.js';
import { WHODRUG_B3_FILES, whodrugB3Terms } from './whodrug-b3.js';

/**
 * Which of an upload's files (loose, or the entries of a licensed distribution's zip) a dictionary load reads, and
 * how. A file is known by its name alone, whatever its folder and letter case: MSSO's zip holds `MedAscii/llt.asc`
 * beside other folders, UMC's holds `DD.txt` etc. Only these names are read, so a zip's other content is never
 * unpacked.
 */

/** A problem with the set of files rather than inside one: a missing, doubled or unsupported file. */
export class DictionaryFileError extends Error {
  constructor(
    readonly reason: 'missing' | 'ambiguous' | 'unsupported',
    readonly file: string,
    message: string,
  ) {
    super(message);
  }
}

/** WHODrug C3's drug name file: recognised, to refuse it by name (its layout is not public). */
const WHODRUG_C3_NAME_FILE = 'mp.txt';

/** The lower-case name of a path's last segment. */
export function baseName(path: string): string {
  return (path.split(/[\\/]/u).pop() ?? '').toLowerCase();
}

/** Whether a file of an upload is one a load of this kind may read. */
export function isDictionaryFile(kind: CodingKind, path: string): boolean {
  const name = baseName(path);
  // A Mac-made zip carries resource forks (`__MACOSX/`, `._llt.asc`) beside each file: never the file itself.
  if (name.startsWith('._') || /(^|[\\/])__MACOSX[\\/]/iu.test(path)) return false;
  if (kind === 'meddra') return (MEDDRA_FILES as readonly string[]).includes(name);
  return (
    (WHODRUG_B3_FILES as readonly string[]).includes(name) || name === WHODRUG_C3_NAME_FILE || name.endsWith('.csv')
  );
}

/**
 * The upload's dictionary files by name (path of the one to read). Where one name is found in several folders the
 * one under `MedAscii` wins (a MedDRA zip's ASCII set); otherwise the upload is ambiguous and refused.
 */
export function pickDictionaryFiles(kind: CodingKind, paths: readonly string[]): Map<string, string> {
  const byName = new Map<string, string[]>();
  for (const p of paths) {
    if (!isDictionaryFile(kind, p)) continue;
    byName.set(baseName(p), [...(byName.get(baseName(p)) ?? []), p]);
  }
  const picked = new Map<string, string>();
  for (const [name, found] of byName) {
    if (found.length === 1 || name.endsWith('.csv')) {
      picked.set(name, found[0]!);
      continue;
    }
    const ascii = found.filter((p) => /(^|[\\/])medascii[\\/]/iu.test(p));
    if (ascii.length !== 1) throw new DictionaryFileError('ambiguous', name, `上传的文件中有多个 ${name}`);
    picked.set(name, ascii[0]!);
  }
  return picked;
}

/**
 * The terms of the picked files' texts (name → text): MedDRA's ASCII set; WHODrug's B3 set (DD.txt, DDA.txt,
 * INA.txt) when any of its files is there, else the platform's CSV. A required file missing is named.
 */
export function dictionaryTermsOf(kind: CodingKind, files: ReadonlyMap<string, string>): DictionaryTerm[] {
  if (kind === 'meddra') return meddraTerms(Object.fromEntries(files) as Partial<Record<MeddraFile, string>>);
  if (WHODRUG_B3_FILES.some((f) => files.has(f))) {
    const missing = WHODRUG_B3_FILES.find((f) => !files.has(f));
    if (missing) throw new DictionaryFileError('missing', missing, `缺少 WHODrug B3 文件 ${missing.toUpperCase()}`);
    return whodrugB3Terms({ dd: files.get('dd.txt')!, dda: files.get('dda.txt')!, ina: files.get('ina.txt')! });
  }
  const csv = [...files.entries()].find(([name]) => name.endsWith('.csv'));
  if (csv) return whodrugTerms(csv[1]);
  if (files.has(WHODRUG_C3_NAME_FILE)) {
    throw new DictionaryFileError(
      'unsupported',
      WHODRUG_C3_NAME_FILE,
      '暂不支持 WHODrug C3 格式（MP.txt），请上传 B3 格式（DD.txt、DDA.txt、INA.txt）或平台的 CSV',
    );
  }
  throw new DictionaryFileError('missing', 'dd.txt', '缺少 WHODrug 文件 DD.txt（B3 格式）或 CSV 文件');
}
