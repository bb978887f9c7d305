import { z } from 'zod';
import { MAX_ROW_ID } from './ids.js';
import { studyIdQuerySchema } from './request-fields.js';

/**
 * The HTTP contract of files (forms §5, UPL-*): the internal upload (multipart, to this server), the external
 * mode's token and confirm calls (straight to the object store), and the download by file key.
 */

// ---- Requests ----

/** UPL-13/UPL-14: the study in the address; UPL-17: the key of the video an uploaded JPEG is the first frame of. */
export const fileUploadQuerySchema = studyIdQuerySchema.extend({
  thumbnailOf: z
    .string()
    .regex(/^[0-9a-f]{32}$/)
    .optional(),
});

/**
 * UPL-11: the token call. `type` 1 image, 2 video, 3 any other file. The server also refuses a file name it could
 * not store (its text bounds).
 */
export const uploadTokenQuerySchema = studyIdQuerySchema.extend({
  type: z.enum(['1', '2', '3']).transform((v) => Number(v) as 1 | 2 | 3),
  fileName: z.string().min(1).max(255),
  // Bytes: bounded by the integer column the confirmed size goes to (and far above any allowed upload).
  size: z.coerce.number().int().min(0).max(MAX_ROW_ID).optional(),
  /** UPL-17: the object key of a video just confirmed; the token is for its first frame beside it. */
  thumbnailOf: z.string().min(1).max(280).optional(),
});

/** UPL-12: the object the browser put in the store, to be read back and recorded. */
export const uploadConfirmBodySchema = z.object({ key: z.string().min(1).max(300) });

/** CONV-09: a stored file by its key; `<video key>_thumbnail.jpg` is the video's first frame (UPL-17). */
export const fileDownloadQuerySchema = z.object({
  fileKey: z.string().regex(/^[0-9a-f]{32}(_thumbnail\.jpg)?$/, '文件不存在'),
});

/** The object read path's key (`/api/v1/fileupload/object/<key>`). */
export const objectFileParamsSchema = z.object({ '*': z.string().min(1).max(300) });

// ---- Responses ----

/** A file stored by the internal upload: its key (the value a form keeps), its name, size and type. */
export const uploadedFileSchema = z.strictObject({
  fileKey: z.string(),
  filePath: z.string(),
  fileName: z.string(),
  size: z.number(),
  contentType: z.string(),
});
export type UploadedFile = z.infer<typeof uploadedFileSchema>;

/** The token call's answer: the internal mode (no object store), or the store's signed form for one key. */
export const uploadTokenAnswerSchema = z.discriminatedUnion('networkMode', [
  z.strictObject({ networkMode: z.literal('internal') }),
  z.strictObject({
    networkMode: z.literal('external'),
    /** The store's form address and signed fields, as base64url JSON: opaque to the spec's client. */
    uploadToken: z.string(),
    domain: z.string(),
    key: z.string(),
  }),
]);
export type UploadTokenAnswer = z.infer<typeof uploadTokenAnswerSchema>;

/** A confirmed object: recorded as an internal upload is, read at `url` (the domain and its key). */
export const confirmedUploadSchema = uploadedFileSchema.extend({
  url: z.string(),
  key: z.string(),
  sha256: z.string(),
});
export type ConfirmedUpload = z.infer<typeof confirmedUploadSchema>;
