import axios from 'axios';
import type { ConfirmedUpload, UploadTokenAnswer } from '@ecrf/core';
import { crfRecordApi } from './crf.api';
import { OBJECT_DOMAIN } from '../utils/file-values';
import { http } from './request';

// The stored-value rules live in utils (the CRF renderer reads them and may not import api/).
export { OBJECT_DOMAIN, THUMBNAIL_SUFFIX, thumbnailValue } from '../utils/file-values';

/** The token call's `type` (1 as the spec's client sends for images; 2 videos, 3 any other file). */
export const UPLOAD_TYPE = { image: 1, video: 2, file: 3 } as const;

/** The token call's answer (UPL-11): core's file contract. */
export type { UploadTokenAnswer } from '@ecrf/core';

export interface ObjectUploadResult {
  url?: string;
  fileKey?: string;
}

/** The token's form address and signed fields (base64url JSON; the file's name may hold Chinese). */
export function readUploadToken(token: string): { url: string; fields: Record<string, string> } {
  const b64 = token.replace(/-/g, '+').replace(/_/g, '/');
  const bytes = Uint8Array.from(atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4)), (c) => c.charCodeAt(0));
  return JSON.parse(new TextDecoder().decode(bytes)) as { url: string; fields: Record<string, string> };
}

const percentOf = (loaded: number, total: number | undefined) =>
  total ? Math.min(100, Math.floor((loaded * 100) / total)) : 0;

/**
 * UPL-10, UPL-11, UPL-12, UPL-13: the external network mode first (the spec's default): ask for a token, send
 * the file straight to the object store with a progress callback, and have the server record it; the value is
 * domain + key. An installation without an object store answers the internal mode, and the file goes to this
 * server as multipart (its value a file key). A refusal rejects with the server's message (UPL-16).
 */
export async function uploadToStorage(
  studyId: number,
  file: File,
  kind: keyof typeof UPLOAD_TYPE,
  onProgress?: (percent: number) => void,
  /** UPL-17: the stored value of the video this JPEG is the first frame of (a key, or domain + key). */
  thumbnailOf?: string,
): Promise<ObjectUploadResult> {
  const objectKey = thumbnailOf?.startsWith(OBJECT_DOMAIN) ? thumbnailOf.slice(OBJECT_DOMAIN.length) : undefined;
  const token = await http.get<UploadTokenAnswer>('/api/v1/qiniu/upload/token', {
    params: {
      studyId,
      type: UPLOAD_TYPE[kind],
      fileName: file.name,
      size: file.size,
      ...(objectKey === undefined ? {} : { thumbnailOf: objectKey }),
    },
    silent: true,
  });
  const answer = token.data;
  if (answer.networkMode === 'internal') {
    const res = await crfRecordApi.upload(studyId, file, onProgress, objectKey === undefined ? thumbnailOf : undefined);
    return { fileKey: res.data.fileKey };
  }
  const { url, fields } = readUploadToken(answer.uploadToken);
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  form.append('Content-Type', file.type || 'application/octet-stream');
  // The file goes last: the store reads the fields before it.
  form.append('file', file);
  onProgress?.(0);
  try {
    // A plain request: the store is another origin and must not see this platform's token.
    await axios.post(url, form, { onUploadProgress: (e) => onProgress?.(percentOf(e.loaded, e.total)) });
  } catch {
    // The store answers in XML for machines; the widget shows 上传失败.
    throw new Error('');
  }
  const confirmed = await http.post<ConfirmedUpload>(
    '/api/v1/qiniu/upload/confirm',
    { key: answer.key },
    { params: { studyId }, silent: true },
  );
  return { url: confirmed.data.url };
}
