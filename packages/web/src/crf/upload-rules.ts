import { FILE_DOWNLOAD_PATH, fileLabel, fileReference } from '@ecrf/core';
import { thumbnailValue } from '../utils/file-values';

/** forms §5, §9: a video must be under 500 MB. */
export const VIDEO_MAX_BYTES = 500 * 1024 * 1024;

export const isVideoTooLarge = (file: { size: number }) => file.size >= VIDEO_MAX_BYTES;

/** Where a stored file value can be fetched: a URL as it is, a key (no slash) through the download call (forms §3, §7). */
export const fileUrl = (value: string) => fileReference(value).url;

/** UPL-17: where a video's first frame is read, or null when the value can have none. */
export function thumbnailUrl(videoValue: string): string | null {
  const value = thumbnailValue(videoValue);
  return value === null ? null : fileUrl(value);
}

/** A file's name to show: its original name when known, else the last path segment of a URL, or the key itself. */
export function fileName(value: string, names?: ReadonlyMap<string, string>): string {
  return fileLabel(value, names);
}

export { FILE_DOWNLOAD_PATH };

/** Shown where an image cannot load (forms §8). */
export const IMAGE_PLACEHOLDER =
  'data:image/svg+xml;charset=utf-8,' +
  encodeURIComponent(
    '<svg xmlns="http://www.w3.org/2000/svg" width="104" height="104" viewBox="0 0 104 104"><rect width="104" height="104" fill="#f2f4f7"/><path d="M30 70l16-20 12 14 8-9 12 15z" fill="#c9ced6"/><circle cx="64" cy="38" r="6" fill="#c9ced6"/></svg>',
  );
