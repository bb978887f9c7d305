import type { Page } from '@ecrf/core';
import { http } from './request';
import type { BaseConfigField, Disease } from './study.api';
import type { FileLink } from './crf.api';

/** docs/api.md "Subjects and data capture": a subject record's state. */
export const SUBJECT_STATE = { active: 0, completed: 1, withdrawn: 2 } as const;
export type SubjectState = (typeof SUBJECT_STATE)[keyof typeof SUBJECT_STATE];

/** platform §3: in the patient area gender 1 is male and 0 female (SUBJ-04). */
export const GENDER = { male: 1, female: 0 } as const;

/** A patient (SUBJ-03). */
export interface Subject {
  id: number;
  studyId: number;
  subjectRecordId: number;
  identificationCode: string;
  subjectName: string;
  gender: number;
  birth: string | null;
  age: number | null;
  mobile: string | null;
  /** 身份证号; masked like the name, birth date and mobile unless the caller may see identifiers. */
  idNumber?: string | null;
  /** The server masked subjectName, birth, mobile and idNumber (no 查看患者身份信息 permission). */
  identifiersMasked?: boolean;
  diseaseCode: string;
  openId: string | null;
  qrCode: string | null;
  deptId: number | null;
  deptName: string | null;
  state: SubjectState;
  creater: string | null;
  createTime: string;
  itemDatas: Array<{ itemName: string; itemValue: unknown; units: string }>;
  /** 已紧急揭盲 (issue 15): the patient's arm was disclosed in an emergency; set once, never cleared. */
  emergencyUnblinded?: boolean;
}

export interface CrfStates {
  total: number;
  submitted: number;
  incomplete: number;
  doubt: number;
}

/** A row of the patient list: the patient, its form progress and the study's extra CRF columns. */
export interface SubjectRecordRow extends Subject {
  crfStates: CrfStates;
  columns: Record<string, unknown>;
  deletedAt?: string | null;
}

export interface RecordColumn {
  key: string;
  title: string;
  source: 'base' | 'crf';
  width: number;
}

/** GET /api/v2/business/subject/crf: what the patient dialog is built from (SUBJ-20). */
export interface SubjectFormModel {
  baseConfig: BaseConfigField[];
  diseases: Disease[];
  enableSerialNumber: boolean;
  /** The code the next patient gets when serial numbers are on. */
  serialPreview: string | null;
}

export interface SubjectBody {
  identificationCode?: string | null;
  /** Left out of an edit when the dialog showed it masked and nothing new was typed: the server keeps it. */
  subjectName?: string;
  gender: number;
  birth?: string | null;
  mobile?: string | null;
  idNumber?: string | null;
  diseaseCode: string;
  deptId?: number | null;
}

export interface RecordFilter {
  identificationCode?: string;
  subjectName?: string;
  diseaseCode?: string;
  state?: SubjectState;
  beginDate?: string;
  endDate?: string;
  deleted?: boolean;
}

/**
 * One row of a subject's audit trail (GET operates), in the server's words (action name, form, item
 * title, old and new text) with the raw codes beside them.
 */
export interface AuditEvent {
  id: number;
  action: string;
  actionName: string;
  subjectRecordId: number | null;
  crfDataRecordId: number | null;
  crfId: number | null;
  crfTitle: string | null;
  crfVersion: number | null;
  itemName: string | null;
  itemTitle: string;
  oldValue: unknown;
  newValue: unknown;
  oldText: string;
  newText: string;
  oldFiles: FileLink[];
  newFiles: FileLink[];
  reason: string | null;
  userName: string;
  createTime: string;
}

/** GET /api/business/index: the study home's figures (STUDY-09). */
export interface StudyIndex {
  subjects: { total: number; active: number; completed: number; withdrawn: number; thisMonth: number };
  forms: { notStarted?: number; incomplete: number; submitted: number; doubt: number };
  doubts: { open: number; replied: number; closed: number };
  enrolment: Array<{ month: string; count: number }>;
  /** Patients enrolled up to the end of each month with enrolment (the last twelve such months). */
  enrolmentCumulative?: Array<{ month: string; total: number }>;
  /** The study's enrolment target; null while none is stored. */
  enrolmentTarget?: number | null;
  /** The date the target is to be reached by (YYYY-MM-DD), or null. */
  enrolmentTargetDate?: string | null;
  /** Forms by state per CRF the caller may view. */
  formsByCrf?: Array<{ crfId: number; title: string; incomplete: number; submitted: number }>;
  /** Queries raised and closed per week (Monday first, the study's zone), the last twelve weeks. */
  queriesWeekly?: Array<{ week: string; opened: number; closed: number }>;
  /** Per planned visit: patients done on time, late, missed (window passed), lost, not yet judged. */
  followCompliance?: Array<{
    visitName: string;
    onTime: number;
    late: number;
    overdue: number;
    lost: number;
    pending: number;
  }>;
}

interface Paging {
  pageNum: number;
  pageSize: number;
}

export const subjectApi = {
  formModel: (studyId: number) => http.get<SubjectFormModel>('/api/v2/business/subject/crf', { params: { studyId } }),
  /**
   * true when the code is already used in the study (SUBJ-12). Asked on blur, so a failure stays
   * quiet: the save is checked again by the server.
   */
  isCodeTaken: (studyId: number, identificationCode: string) =>
    http.get<boolean>('/api/business/subject/unique', { params: { identificationCode, studyId }, silent: true }),
  get: (id: number) => http.get<Subject>(`/api/business/subject/${id}`),
  byRecord: (subjectRecordId: number) => http.get<Subject>(`/api/business/ducking/patientInfo/${subjectRecordId}`),
  add: (body: SubjectBody & { studyId: number }) => http.post<Subject>('/api/business/subject', body),
  update: (body: SubjectBody & { id: number }) => http.put<Subject>('/api/business/subject', body),
  /**
   * 转移中心: moves the patient to another site (department) with a reason (1–200 characters); for members
   * holding 查看全部中心数据 and the patient edit permission. The edit itself keeps the patient's site.
   */
  moveSite: (body: { subjectId: number; deptId: number; reason: string }) =>
    http.put<Subject>('/api/business/subject/site', body),
};

export const subjectRecordApi = {
  /** SUBJ-24: the v3 list is a POST with pageNum and pageSize. */
  list: (body: Paging & RecordFilter & { studyId: number }) =>
    http.post<Page<SubjectRecordRow>>('/api/v3/business/subjectRecord/list', body),
  columns: (studyId: number) =>
    http.get<RecordColumn[]>('/api/v3/business/subjectRecord/columns', { params: { studyId } }),
  /** SUBJ-25/SUBJ-26: `{ subjectRecordId, state, reason? }`; leaving the study (2) needs a reason. */
  setState: (body: { subjectRecordId: number; state: SubjectState; reason?: string }) =>
    http.put<null>('/api/business/subjectRecord/state', body),
  /** SUBJ-27: a soft delete, with the reason in the query. */
  remove: (subjectRecordId: number, reason: string) =>
    http.delete<null>('/api/business/subjectRecord', { params: { subjectRecordId, reason } }),
  restore: (subjectRecordId: number, reason: string) =>
    http.put<null>('/api/business/subjectRecord/restore', { subjectRecordId, reason }),
  operates: (params: Paging & { subjectRecordId: number }) =>
    http.get<Page<AuditEvent>>('/api/business/subjectRecord/operates', { params }),
  operate: (id: number) => http.get<AuditEvent>('/api/business/subjectRecord/operate', { params: { id } }),
};

export const studyHomeApi = {
  /** Quiet: the home page shows its own notice when the figures can't be read. */
  index: (studyId: number) => http.get<StudyIndex>('/api/business/index', { params: { studyId }, silent: true }),
};
