import { crfIdsWith, crfKey, roleHolds } from '@ecrf/core';

/** What the caller may do in the study a request names. */
export interface StudyAccess {
  studyId: number;
  /** Staff of the study (false for a `study:manage` holder who is not). */
  member: boolean;
  studyRoleId: number | null;
  /** Keys of the caller's study role (`btn:…`, `crf:<id>:<action>`); every key for `study:manage`. */
  permissions: string[];
  all: boolean;
  /** The study's IANA zone: "today", date defaults and the engine's "now" are in it. */
  timeZone: string;
}

/** A study-level button or CRF permission of the caller's study role (held itself or through a key including it). */
export function hasStudyPermission(access: StudyAccess, key: string): boolean {
  return access.all || roleHolds(access.permissions, key);
}

/** The CRFs whose values the caller may read in this study; `null` means all of them. */
export function viewableCrfIds(access: StudyAccess): number[] | null {
  return access.all ? null : crfIdsWith(access.permissions, 'view');
}

export function canViewCrf(access: StudyAccess, crfId: number | null | undefined): boolean {
  if (crfId === null || crfId === undefined) return true;
  return hasStudyPermission(access, crfKey(crfId, 'view'));
}
