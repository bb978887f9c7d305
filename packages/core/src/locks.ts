import { todayString } from './crf/date-time.js';

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
