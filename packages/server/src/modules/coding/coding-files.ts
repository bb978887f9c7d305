import JSZip from 'jszip';
import {
  CODING_MSG,
  DictionaryFileError,
  dictionaryTermsOf,
  isDictionaryFile,
  MeddraFormatError,
  MeddraMissingFileError,
  pickDictionaryFiles,
  WhodrugFormatError,
  type CodingKind,
  type DictionaryTerm,
} from '@ecrf/core';
import { AppError } from '../../shared/app-error.js';

/**
 * The files of a dictionary upload: loose files, or the licensed distribution's zip as downloaded (MSSO's MedDRA
 * zip with its MedAscii folder, UMC's WHODrug zip), or both. Core picks the files by name; only those are unpacked.
 */

export interface UploadedFile {
  name: string;
  data: Buffer;
}

/** An uncompressed file larger than this is refused before it is unpacked (a zip bomb stays packed). */
const MAX_ENTRY_BYTES = 512 * 1024 * 1024;

const isZip = (f: UploadedFile) =>
  f.name.toLowerCase().endsWith('.zip') || f.data.subarray(0, 4).equals(Buffer.from([0x50, 0x4b, 0x03, 0x04]));

/** Every readable file of the upload by path (a zip's entries under the zip's name), not yet decoded. */
async function filesOf(kind: CodingKind, uploads: readonly UploadedFile[]) {
  const found = new Map<string, () => Promise<string>>();
  for (const upload of uploads) {
    if (!isZip(upload)) {
      found.set(upload.name, () => Promise.resolve(upload.data.toString('utf8')));
      continue;
    }
    let zip: JSZip;
    try {
      zip = await JSZip.loadAsync(upload.data);
    } catch {
      throw AppError.badRequest('coding.bad_zip', `${CODING_MSG.badZip}：${upload.name}`);
    }
    for (const entry of Object.values(zip.files)) {
      if (entry.dir || !isDictionaryFile(kind, entry.name)) continue;
      // jszip keeps the central directory's size; a file claiming more than the limit is not inflated.
      const size = (entry as unknown as { _data?: { uncompressedSize?: number } })._data?.uncompressedSize ?? 0;
      if (size > MAX_ENTRY_BYTES) throw AppError.badRequest('coding.too_large', CODING_MSG.tooLarge);
      found.set(`${upload.name}/${entry.name}`, () => entry.async('string'));
    }
  }
  return found;
}

/** The terms of an upload, or a 400 naming what is wrong: a file missing or doubled, a line out of format. */
export async function termsOfUpload(kind: CodingKind, uploads: readonly UploadedFile[]): Promise<DictionaryTerm[]> {
  if (uploads.length === 0) throw AppError.badRequest('coding.no_files', CODING_MSG.noFiles);
  try {
    const found = await filesOf(kind, uploads);
    const texts = new Map<string, string>();
    for (const [name, path] of pickDictionaryFiles(kind, [...found.keys()])) {
      texts.set(name, await found.get(path)!());
    }
    return dictionaryTermsOf(kind, texts);
  } catch (e) {
    if (e instanceof MeddraMissingFileError || (e instanceof DictionaryFileError && e.reason === 'missing')) {
      // "压缩包中缺少 MedDRA 文件 pt.asc": the coder knows where it was looked for.
      throw AppError.badRequest('coding.missing_file', uploads.some(isZip) ? `压缩包中${e.message}` : e.message);
    }
    if (e instanceof DictionaryFileError) throw AppError.badRequest(`coding.${e.reason}_file`, e.message);
    if (e instanceof MeddraFormatError || e instanceof WhodrugFormatError) {
      throw AppError.badRequest('coding.bad_file', `${CODING_MSG.badFile}：${e.message}`);
    }
    throw e;
  }
}
