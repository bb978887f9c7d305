import { z } from 'zod';
import { rowIdTextSchema } from './ids.js';
import { pagingQueryFields } from './request-fields.js';

/**
 * The HTTP contract of the operation log (操作日志, GET /api/monitor/operlog/list): one study's entries for its
 * staff, or the whole log for system administrators. An entry holds who, what, when, where from and the result,
 * never a request's or an answer's body.
 */

/** A date-only end bound means the whole of that day (China time, as the log's page shows it). */
const endOfDay = (v: string) => (/^\d{4}-\d{2}-\d{2}$/.test(v) ? `${v}T23:59:59.999+08:00` : v);
const startOfDay = (v: string) => (/^\d{4}-\d{2}-\d{2}$/.test(v) ? `${v}T00:00:00+08:00` : v);

export const operLogQuerySchema = z.object({
  ...pagingQueryFields,
  studyId: rowIdTextSchema.optional(),
  title: z.string().trim().optional(),
  operName: z.string().trim().optional(),
  businessType: z.string().trim().optional(),
  status: z.coerce.number().int().min(0).max(1).optional(),
  beginTime: z.string().transform(startOfDay).pipe(z.coerce.date()).optional(),
  endTime: z.string().transform(endOfDay).pipe(z.coerce.date()).optional(),
});
/** The log's filters as the browser sends them: its bounds as text (a date alone is the whole day). */
export type OperLogQuery = Omit<z.output<typeof operLogQuerySchema>, 'beginTime' | 'endTime'> & {
  beginTime?: string;
  endTime?: string;
};

/** One entry of the log. */
export const operLogSchema = z.strictObject({
  operId: z.number(),
  title: z.string(),
  businessType: z.string(),
  method: z.string(),
  requestMethod: z.string(),
  operUserId: z.number().nullable(),
  operName: z.string().nullable(),
  /** The route's path without its query string: a query can carry names and numbers. */
  operUrl: z.string(),
  operIp: z.string().nullable(),
  /** Ids of what the operation acted on (`subjectRecordId=12 crfId=3`); the log keeps no values. */
  target: z.string().nullable(),
  /** The envelope's code of the answer. */
  resultCode: z.number().nullable(),
  studyId: z.number().nullable(),
  status: z.number(),
  httpStatus: z.number(),
  errorMsg: z.string().nullable(),
  costTime: z.number(),
  requestId: z.string().nullable(),
  operTime: z.string(),
});
export type OperLog = z.infer<typeof operLogSchema>;
