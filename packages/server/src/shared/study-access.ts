import { crfIdsWith, crfKey, roleHolds, type SpineBandSet, type StudyPermissionKey } from '@ecrf/core';

export { STUDY_MANAGE } from '@ecrf/core';

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
  /** The study's 脊柱诊断分级标准 (the spec's bands when absent): the manual spine measures' diagnoses. */
  spineBandSet?: SpineBandSet;
  /**
   * The sites (departments, sub-departments included) whose patients the caller sees and touches; `null` for
   * every site (查看全部中心数据, or study:manage). docs/multi-centre.md.
   */
  siteIds: number[] | null;
  /** The member's own sites as assigned (without sub-departments): where their new patients go. */
  ownSiteIds: number[];
}

/** The study button that lifts a member's site scope. */
export const ALL_SITES_KEY = 'btn:business.subject.allSites' satisfies StudyPermissionKey;

/** May the caller see a patient of this site? A patient with no site is seen only by all-sites callers. */
export function seesSite(access: Pick<StudyAccess, 'siteIds'>, siteId: number | null | undefined): boolean {
  if (access.siteIds === null) return true;
  return siteId !== null && siteId !== undefined && access.siteIds.includes(siteId);
}

/** A study-level button or CRF permission of the caller's study role (held itself or through a key including it). */
export function hasStudyPermission(access: StudyAccess, key: StudyPermissionKey): boolean {
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
