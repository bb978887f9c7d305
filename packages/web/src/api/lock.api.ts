import type { LockBody, LockState, StudyLock, StudyLockHistory } from '@ecrf/core';
import { http } from './request';

/** The locks' request and answer shapes are core's contract (locks.ts); the pages import them here. */
export type { LockBody, LockRefusalData, LockState, StudyLock, StudyLockHistory } from '@ecrf/core';

export const lockApi = {
  state: (params: { studyId: number; subjectRecordId: number; crfDataRecordId?: number }) =>
    http.get<LockState>('/api/business/lock/state', { params }),
  /** Sets (locked: true) or lifts a lock; needs 锁定/解锁 and a reason. Answers the new lock's id when set. */
  change: (body: LockBody) => http.put<{ id: number } | null>('/api/business/lock', body),
  list: (studyId: number) => http.get<StudyLock[]>('/api/business/lock', { params: { studyId } }),
  history: (studyId: number) => http.get<StudyLockHistory[]>('/api/business/lock/history', { params: { studyId } }),
};
