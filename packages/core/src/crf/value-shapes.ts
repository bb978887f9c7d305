import type { CrfNode } from './crf-definition.schema.js';
import { itemTypeOf } from './item-types/registry.js';

/**
 * Stored value shapes of forms §3, read leniently and written one canonical way:
 *   checkbox      string[]                       (also read: JSON string, comma string)
 *   multiSelect   "a,b"                          (also read: array, JSON string)
 *   image/video   JSON string of entry objects   (also read: arrays, JSON of plain URLs)
 *   table/list    array of row objects           (also read: JSON string)
 *   slider        number
 *   everything else: the text as entered (numbers become their decimal text)
 */
export type RowValues = Record<string, unknown>;

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** A scalar as text (numbers and flags as their decimal text); anything else is ''. */
export function scalarText(v: unknown): string {
  return typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : '';
}
const asText = scalarText;

/** The stored text of a value kept as text: an object as its JSON. */
export function writeText(raw: unknown): string {
  return typeof raw === 'object' ? JSON.stringify(raw) : asText(raw);
}

export function readChoiceList(raw: unknown): string[] {
  if (raw === undefined || raw === null) return [];
  // A chosen code is read alike from a list and from text: trimmed, blanks dropped (so a stored value reads back
  // as itself: [' '] and ' ' are both no choice).
  if (Array.isArray(raw)) return raw.map((v) => asText(v).trim()).filter((v) => v !== '');
  if (typeof raw === 'number') return [String(raw)];
  if (typeof raw !== 'string') return [];
  const text = raw.trim();
  if (text === '') return [];
  if (text.startsWith('[')) {
    const parsed = parseJson(text);
    if (Array.isArray(parsed)) return parsed.map((v) => asText(v).trim()).filter((v) => v !== '');
  }
  return text
    .split(',')
    .map((v) => v.trim())
    .filter((v) => v !== '');
}

/** Canonical checkbox value: an array of the chosen option values, each once. */
export function writeCheckbox(values: readonly string[]): string[] {
  return [...new Set(values)];
}

/** Canonical multi-select value: a comma string. */
export function writeMultiSelect(values: readonly string[]): string {
  return [...new Set(values)].join(',');
}

export interface ImageEntry {
  uploadTime: string;
  remarks: string;
  dialogImgUrl: string;
}
export interface VideoEntry {
  videoTime: string;
  remarks: string;
  dialogVideoUrl: string;
}
export type MediaKind = 'image' | 'video';
export type MediaEntry<K extends MediaKind> = K extends 'image' ? ImageEntry : VideoEntry;

/** forms §5, §9: remarks in the upload dialogs are at most 180 characters. */
export const UPLOAD_REMARKS_MAX = 180;

function toEntry<K extends MediaKind>(kind: K, item: unknown): MediaEntry<K> | null {
  const record = typeof item === 'object' && item !== null ? (item as Record<string, unknown>) : null;
  const url =
    typeof item === 'string'
      ? item
      : asText(record?.[kind === 'image' ? 'dialogImgUrl' : 'dialogVideoUrl'] ?? record?.url);
  if (url === '') return null;
  const time = asText(record?.[kind === 'image' ? 'uploadTime' : 'videoTime']);
  const remarks = asText(record?.remarks);
  const entry =
    kind === 'image'
      ? { uploadTime: time, remarks, dialogImgUrl: url }
      : { videoTime: time, remarks, dialogVideoUrl: url };
  return entry as MediaEntry<K>;
}

export function readMediaList<K extends MediaKind>(kind: K, raw: unknown): MediaEntry<K>[] {
  let list: unknown = raw;
  if (typeof raw === 'string') {
    const text = raw.trim();
    list = text === '' ? [] : text.startsWith('[') ? parseJson(text) : [text];
  }
  if (!Array.isArray(list)) return [];
  return list.flatMap((item) => {
    const entry = toEntry(kind, item);
    return entry ? [entry] : [];
  });
}

export function writeMediaList<K extends MediaKind>(entries: readonly MediaEntry<K>[]): string {
  return JSON.stringify(entries);
}

/** forms §4: add appends an entry; edit replaces the entry at the chosen index. Returns a new list. */
export function applyUploadEntry<T>(list: readonly T[], entry: T, editIndex?: number): T[] {
  if (editIndex === undefined || editIndex < 0 || editIndex >= list.length) return [...list, entry];
  return list.map((current, i) => (i === editIndex ? entry : current));
}

export function readRows(raw: unknown): RowValues[] {
  const list = typeof raw === 'string' ? (raw.trim() === '' ? [] : parseJson(raw)) : raw;
  if (!Array.isArray(list)) return [];
  return list.filter((row): row is RowValues => typeof row === 'object' && row !== null && !Array.isArray(row));
}

export const FILE_DOWNLOAD_PATH = '/api/v1/fileupload/downfile';

export type FileReference = { kind: 'url'; url: string } | { kind: 'key'; key: string; url: string };

/** forms §3, §7: a stored file value without a slash is a key, shown through the download call. */
export function fileReference(value: string): FileReference {
  if (value.includes('/')) return { kind: 'url', url: value };
  return { kind: 'key', key: value, url: `${FILE_DOWNLOAD_PATH}?fileKey=${encodeURIComponent(value)}` };
}

/** Any accepted stored shape of an item's value, in its canonical form (its type's `normalize`). */
export function normalizeValue(node: CrfNode, raw: unknown): unknown {
  if (raw === undefined || raw === null) return undefined;
  return itemTypeOf(node.type).normalize(raw, node);
}

/** A row of a list group or table: each child's value in its canonical form, keys that are not children left out. */
export function normalizeRow(node: CrfNode, row: RowValues): RowValues {
  const out: RowValues = {};
  for (const child of node.children) {
    if (Object.hasOwn(row, child.name)) {
      const value = normalizeValue(child, row[child.name]);
      if (value !== undefined) out[child.name] = value;
    }
  }
  return out;
}
