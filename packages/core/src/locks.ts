import { z } from 'zod';
import { todayString } from './crf/date-time.js';
import { rowIdSchema, rowIdTextSchema } from './ids.js';
import { studyIdQuerySchema } from './request-fields.js';

/**
 * Locks (数据库锁定, docs/multi-centre.md): one form record (表单锁定), one patient's casebook (病例锁定), a site
 * (中心锁定) or the whole study (数据库锁定). A locked thing accepts no change through any writer; reads, exports,
 * SDV views and the audit trail still work. A study set to 已结束 is frozen the same way until reopened.
 */
export const LOCK_SCOPES = ['study', 'site', 'subject', 'record'] as const;
export type LockScope = (typeof LOCK_SCOPES)[number];

export const LOCK_SCOPE_NAMES: Readonly<Record<LockScope, string>> = {
  study: '数据库锁定',
  site: '中心锁定',
  subject: '病例锁定',
  record: '表单锁定',
};

const LOCKED_THING: Readonly<Record<LockScope, string>> = {
  study: '该项目数据库',
  site: '该中心',
  subject: '该病例',
  record: '该表单',
};

/** A lock as the refusal and the 🔒 marks name it. */
export interface LockNote {
  scope: LockScope;
  lockedByName: string;
  /** ISO instant. */
  lockedAt: string;
  reason: string;
}

/** 该病例已锁定（张三 2026-12-01），如需修改请先解锁: who and when, the date in the study's zone. */
export function lockMessage(lock: LockNote, timeZone?: string): string {
  const day = todayString(new Date(lock.lockedAt), timeZone);
  return `${LOCKED_THING[lock.scope]}已锁定（${lock.lockedByName} ${day}），如需修改请先解锁`;
}

/** The refusal of a change to a study set to 已结束. */
export const STUDY_FROZEN_MSG = '该项目已结束，数据已冻结，如需修改请先重新开启项目';

/** Study status (docs/api.md): 0 进行中, 1 已结束. A finished study is frozen. */
export const STUDY_STATUS_FINISHED = 1;

/** Scopes that name a target, and which: a site is a department, a casebook a subject record, a form a data record. */
export const lockNeedsTarget = (scope: LockScope) => scope !== 'study';

/** The words of a lock change's refusals. */
export const LOCK_MSG = {
  reasonRequired: '请填写原因',
  targetRequired: '请选择锁定对象',
  already: '已锁定',
  notLocked: '未锁定',
  siteNotFound: '中心不存在',
  subjectNotFound: '患者不存在',
  recordNotFound: '表单记录不存在',
} as const;

// ---- The HTTP contract: requests as the server validates them, answers as the browser reads them ----

/** PUT /api/business/lock: sets (locked: true) or lifts a lock, with a reason. */
export const lockBodySchema = z.object({
  studyId: rowIdSchema,
  scope: z.enum(LOCK_SCOPES, { error: '锁定范围无效' }),
  /** A department (site), a casebook (subject record) or a form record; none for the study. */
  targetId: rowIdSchema.nullish(),
  locked: z.boolean(),
  reason: z
    .string({ error: LOCK_MSG.reasonRequired })
    .trim()
    .min(1, LOCK_MSG.reasonRequired)
    .max(500, '原因不能超过500个字符'),
});
export type LockBody = z.input<typeof lockBodySchema>;

/** GET /api/business/lock/state: what holds one casebook or form now. */
export const lockStateQuerySchema = studyIdQuerySchema.extend({
  subjectRecordId: rowIdTextSchema.optional(),
  crfDataRecordId: rowIdTextSchema.optional(),
});

const lockScopeSchema = z.enum(LOCK_SCOPES);

/** A lock as GET /api/business/lock lists it (docs/multi-centre.md). */
export const studyLockSchema = z.strictObject({
  id: z.number(),
  scope: lockScopeSchema,
  /** 数据库锁定 / 中心锁定 / 病例锁定 / 表单锁定. */
  scopeName: z.string(),
  /** 0 for the study; a department (site), a casebook (subject record) or a form record. */
  targetId: z.number(),
  /** The site's name, the patient's code or the form's title ('' for the study). */
  targetName: z.string(),
  /** The casebook a casebook or form lock is on. */
  subjectRecordId: z.number().nullable(),
  identificationCode: z.string().nullable(),
  /** The form of a form lock. */
  crfId: z.number().nullable(),
  lockedByName: z.string(),
  /** ISO instant. */
  lockedAt: z.string(),
  reason: z.string(),
  /** What a refused change says: 该病例已锁定（张三 2026-12-01），如需修改请先解锁. */
  message: z.string(),
});
export type StudyLock = z.infer<typeof studyLockSchema>;

/** A lock in the history, lifted or not. */
export const studyLockHistorySchema = studyLockSchema.extend({
  /** A study lock's audit chain head at the moment it was set. */
  chainHead: z.string().nullable(),
  unlockedByName: z.string().nullable(),
  unlockedAt: z.string().nullable(),
  unlockReason: z.string().nullable(),
});
export type StudyLockHistory = z.infer<typeof studyLockHistorySchema>;

/** A new lock's id; lifting one answers null. */
export const lockChangedSchema = z.strictObject({ id: z.number() }).nullable();

/** The lock a refused change (423, code lock.locked) carries in its data, for the 🔒. */
export const lockRefusalLockSchema = z.strictObject({
  id: z.number(),
  scope: lockScopeSchema,
  scopeName: z.string(),
  targetId: z.number(),
  lockedByName: z.string(),
  lockedAt: z.string(),
  reason: z.string(),
});
export const lockRefusalDataSchema = z.strictObject({ lock: lockRefusalLockSchema });
export type LockRefusalData = z.infer<typeof lockRefusalDataSchema>;

/** What holds one casebook or form now (GET /api/business/lock/state): the page's 🔒. */
export const lockStateSchema = z.strictObject({
  locked: z.boolean(),
  /** The study is 已结束: frozen until reopened. */
  frozen: z.boolean(),
  /** The words a refused save gets. */
  message: z.string().nullable(),
  lock: lockRefusalLockSchema.nullable(),
});
export type LockState = z.infer<typeof lockStateSchema>;
