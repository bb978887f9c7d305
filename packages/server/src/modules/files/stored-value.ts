import { storedFileKey } from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { AppError } from '../../shared/app-error.js';
import { openFileRow, storageKeyOf } from './file.service.js';
import { OBJECT_DOMAIN, objectFileKey } from './object-upload.service.js';

/**
 * Where the file a stored value names is: its stored_files key and where its bytes are in `ctx.files`. The one
 * reading of a value for every reader of stored files on the server (print, REDCap, audit, import by URL,
 * recognition), whichever network mode wrote it (docs/object-storage.md):
 * - internal mode: a key, or the download call's address (core `storedFileKey`); the bytes are at `files/ab/ab12…`;
 * - external mode: the object address `/api/v1/fileupload/object/<key>`; the stored_files key is derived from the
 *   object key (objectFileKey) and the bytes are at the object key itself.
 */
export interface StoredFileRef {
  fileKey: string;
  /** The key of the bytes in the file storage. */
  storageKey: string;
  /** The object store key (external mode), else null. */
  objectKey: string | null;
  /** The value as a reader links to it: the object address for an object, else the file key. */
  value: string;
}

const FILE_KEY = /^[0-9a-f]{32}$/;
/** What objectName leaves in a key (and the `type/timestamp/` before it): no `%`, so decoding is unambiguous. */
const OBJECT_KEY = /^[\p{L}\p{N}._-]+(\/[\p{L}\p{N}._-]+)*$/u;

/** The object key of an object address (relative, or on any host, as core reads the download call's), or null. */
export function objectKeyOf(value: string): string | null {
  const trimmed = value.trim();
  let path: string;
  try {
    path = new URL(trimmed, 'http://local.invalid').pathname;
  } catch {
    return null;
  }
  if (!path.startsWith(OBJECT_DOMAIN)) return null;
  let key: string;
  try {
    // A URL parser (and a browser) percent-encodes the key's Chinese letters: the key is kept as objectName wrote it.
    key = decodeURIComponent(path.slice(OBJECT_DOMAIN.length)).normalize('NFC');
  } catch {
    return null;
  }
  if (key.length === 0 || key.length > 300 || !OBJECT_KEY.test(key)) return null;
  if (key.split('/').some((segment) => segment === '.' || segment === '..')) return null;
  return key;
}

/** A file of the object store (external mode), by its object key. */
export function objectFile(objectKey: string): StoredFileRef {
  return { fileKey: objectFileKey(objectKey), storageKey: objectKey, objectKey, value: `${OBJECT_DOMAIN}${objectKey}` };
}

/** A file the server stored itself (internal mode), by its key. */
export function internalFile(fileKey: string): StoredFileRef {
  return { fileKey, storageKey: storageKeyOf(fileKey), objectKey: null, value: fileKey };
}

/** The file a stored value (or an address of this platform) names, or null when it names none of ours. */
export function storedFileOf(value: unknown): StoredFileRef | null {
  if (typeof value !== 'string' || !value.trim()) return null;
  const objectKey = objectKeyOf(value);
  if (objectKey !== null) return objectFile(objectKey);
  const fileKey = storedFileKey(value.trim());
  if (fileKey === null || !FILE_KEY.test(fileKey)) return null;
  return internalFile(fileKey);
}

/**
 * A stored file's row and a stream of its bytes, wherever the value put them (openFile reads only the internal
 * mode's place). The caller has checked the reader's right to it, as for openFile.
 */
export async function openStoredFile(ctx: AppContext, ref: StoredFileRef) {
  const row = await openFileRow(ctx, ref.fileKey);
  // An object address read by a server without an object store (S3_* removed): the bytes are not here.
  if (ref.objectKey !== null && !ctx.files.direct) throw AppError.notFound('file.not_found', '文件不存在');
  const stream = await ctx.files.get(ref.storageKey);
  if (!stream) throw AppError.notFound('file.not_found', '文件不存在');
  return { row, stream };
}
