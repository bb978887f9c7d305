import {
  buttonKey,
  hasPermission,
  isStudyPermissionKey,
  roleHolds,
  STUDY_MANAGE,
  type StudyButton,
  type StudyPermissionKey,
} from '@ecrf/core';

/** The system permission of 项目维护: its holders may reach and do everything in every study. */
export { STUDY_MANAGE };

/** The study buttons of the patient list (keys `btn:<code>` of the caller's study role). */
export const SUBJECT_BUTTONS = {
  add: 'business.subject.add',
  edit: 'business.subject.edit',
  remove: 'business.subject.remove',
  /** 查看全部中心数据: every site's patients, and moving a patient between sites. */
  allSites: 'business.subject.allSites',
} as const;

export interface StudyAccessSource {
  /** The signed-in user's system permissions (getInfo, and the stored button list). */
  permissions: readonly string[];
  /** The caller's role in this study, from GET /api/business/study/{id}; null when not staff. */
  myRole: { permissions: readonly string[] } | null | undefined;
}

/**
 * May the caller use a study button or CRF action? A `study:manage` holder (or the
 * administrator's *:*:*) may do everything; anyone else needs the key in their study role (itself or
 * through a key including it: 回复咨询 includes 查看咨询).
 * `code` is a button code (`business.subject.add`) or a full key (`btn:…`, `crf:<id>:<action>`).
 * The server checks the same rule; this only decides what the page offers.
 */
export function canInStudy(source: StudyAccessSource, code: StudyButton | StudyPermissionKey): boolean {
  if (hasPermission(source.permissions, STUDY_MANAGE)) return true;
  const key = isStudyPermissionKey(code) ? code : buttonKey(code);
  return roleHolds(source.myRole?.permissions ?? [], key);
}
