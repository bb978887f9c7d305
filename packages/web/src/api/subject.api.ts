import type {
  AuditEvent,
  Page,
  RecordColumn,
  Subject,
  SubjectCreateBody,
  SubjectFormModel,
  SubjectOperatesQuery,
  SubjectRecordFilter,
  SubjectRecordRow,
  SubjectRecordStateBody,
  SubjectSiteMoveBody,
  SubjectUpdateBody,
  StudyIndex,
} from '@ecrf/core';
import { http } from './request';

/** The shapes of these calls are core's contract (subject-contract.ts); named here as pages import them. */
export type {
  AuditEvent,
  CrfStates,
  RecordColumn,
  Subject,
  SubjectFormModel,
  SubjectRecordFilter as RecordFilter,
  SubjectRecordRow,
  SubjectState,
  StudyIndex,
} from '@ecrf/core';

/** docs/api.md "Subjects and data capture": a subject record's state. */
export const SUBJECT_STATE = { active: 0, completed: 1, withdrawn: 2 } as const;

/** platform §3: in the patient area gender 1 is male and 0 female (SUBJ-04). */
export const GENDER = { male: 1, female: 0 } as const;

/**
 * The patient dialog's fields, sent to enrol (with the study) or to edit (with the patient's id): an edit leaves
 * out the masked name it kept.
 */
export type SubjectBody = Omit<SubjectCreateBody, 'studyId' | 'subjectName'> & Pick<SubjectUpdateBody, 'subjectName'>;

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
  update: (body: SubjectUpdateBody) => http.put<Subject>('/api/business/subject', body),
  /**
   * 转移中心: moves the patient to another site (department) with a reason (1–200 characters); for members
   * holding 查看全部中心数据 and the patient edit permission. The edit itself keeps the patient's site.
   */
  moveSite: (body: SubjectSiteMoveBody) => http.put<Subject>('/api/business/subject/site', body),
};

export const subjectRecordApi = {
  /** SUBJ-24: the v3 list is a POST with pageNum and pageSize. */
  list: (body: Paging & SubjectRecordFilter & { studyId: number }) =>
    http.post<Page<SubjectRecordRow>>('/api/v3/business/subjectRecord/list', body),
  columns: (studyId: number) =>
    http.get<RecordColumn[]>('/api/v3/business/subjectRecord/columns', { params: { studyId } }),
  /** SUBJ-25/SUBJ-26: `{ subjectRecordId, state, reason? }`; leaving the study (2) needs a reason. */
  setState: (body: SubjectRecordStateBody) => http.put<null>('/api/business/subjectRecord/state', body),
  /** SUBJ-27: a soft delete, with the reason in the query. */
  remove: (subjectRecordId: number, reason: string) =>
    http.delete<null>('/api/business/subjectRecord', { params: { subjectRecordId, reason } }),
  restore: (subjectRecordId: number, reason: string) =>
    http.put<null>('/api/business/subjectRecord/restore', { subjectRecordId, reason }),
  operates: (params: SubjectOperatesQuery) =>
    http.get<Page<AuditEvent>>('/api/business/subjectRecord/operates', { params }),
  operate: (id: number) => http.get<AuditEvent>('/api/business/subjectRecord/operate', { params: { id } }),
};

export const studyHomeApi = {
  /** Quiet: the home page shows its own notice when the figures can't be read. */
  index: (studyId: number) => http.get<StudyIndex>('/api/business/index', { params: { studyId }, silent: true }),
};
