import type { LockScope } from '@ecrf/core';
import { http } from './request';

/** A lock as GET /api/business/lock lists it (docs/multi-centre.md). */
export interface StudyLock {
  id: number;
  scope: LockScope;
  /** 数据库锁定 / 中心锁定 / 病例锁定 / 表单锁定. */
  scopeName: string;
  /** 0 for the study; a department (site), a casebook (subject record) or a form record. */
  targetId: number;
  /** The site's name, the patient's code or the form's title ('' for the study). */
  targetName: string;
  /** The casebook a casebook or form lock is on. */
  subjectRecordId: number | null;
  identificationCode: string | null;
  /** The form of a form lock. */
  crfId: number | null;
  lockedByName: string;
  /** ISO instant. */
  lockedAt: string;
  reason: string;
  /** What a refused change says: 该病例已锁定（张三 2026-12-01），如需修改请先解锁. */
  message: string;
}

/** A lock in the history, lifted or not. */
export interface StudyLockHistory extends StudyLock {
  /** A study lock's audit chain head at the moment it was set. */
  chainHead: string | null;
  unlockedByName: string | null;
  unlockedAt: string | null;
  unlockReason: string | null;
}

export interface LockBody {
  studyId: number;
  scope: LockScope;
  /** None for the study. */
  targetId?: number | null;
  locked: boolean;
  reason: string;
}

/** What a refused change (423, code lock.locked) carries in its data, for the 🔒. */
export interface LockRefusalData {
  lock: {
    id: number;
    scope: LockScope;
    scopeName: string;
    targetId: number;
    lockedByName: string;
    lockedAt: string;
    reason: string;
  };
}

/** What holds one casebook or form now (GET /api/business/lock/state): the page's 🔒. */
export interface LockState {
  locked: boolean;
  /** The study is 已结束: frozen until reopened. */
  frozen: boolean;
  /** The words a refused save gets. */
  message: string | null;
  lock: LockRefusalData['lock'] | null;
}

export const lockApi = {
  state: (params: { studyId: number; subjectRecordId: number; crfDataRecordId?: number }) =>
    http.get<LockState>('/api/business/lock/state', { params }),
  /** Sets (locked: true) or lifts a lock; needs 锁定/解锁 and a reason. Answers the new lock's id when set. */
  change: (body: LockBody) => http.put<{ id: number } | null>('/api/business/lock', body),
  list: (studyId: number) => http.get<StudyLock[]>('/api/business/lock', { params: { studyId } }),
  history: (studyId: number) => http.get<StudyLockHistory[]>('/api/business/lock/history', { params: { studyId } }),
};
