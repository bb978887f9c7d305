/** Where external values are read: `domain + key` (the token call's domain). */
export const OBJECT_DOMAIN = '/api/v1/fileupload/object/';
/** UPL-17 (forms §7): a video's first frame is stored under the video's value plus this suffix. */
export const THUMBNAIL_SUFFIX = '_thumbnail.jpg';

/**
 * UPL-17: the value of a video's thumbnail, derived from the video's stored value: an internal key (read through
 * the download call as `<key>_thumbnail.jpg`) or an object of this platform's store (`domain + key` plus the
 * suffix). Any other address (an allow-listed import) has none, so no request goes to a foreign host.
 */
export function thumbnailValue(videoValue: string): string | null {
  if (/^[0-9a-f]{32}$/.test(videoValue)) return `${videoValue}${THUMBNAIL_SUFFIX}`;
  if (videoValue.startsWith(OBJECT_DOMAIN) && videoValue.length > OBJECT_DOMAIN.length) {
    return `${videoValue}${THUMBNAIL_SUFFIX}`;
  }
  return null;
}
