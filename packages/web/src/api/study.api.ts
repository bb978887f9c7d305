import {
  LOAD_ALL_PAGE_SIZE,
  type CandidateUser,
  type CrfDetail,
  type CrfExistingChoice,
  type CrfExportFormat,
  type CrfFileResult,
  type CrfListItem,
  type CrfRow,
  type CrfStage,
  type CrfStageSummary,
  type CrfUploadResult,
  type Disease,
  type DiseaseCreateBody,
  type DiseaseUpdateBody,
  type FollowTrigger,
  type FollowTriggerBody,
  type Page,
  type PermissionNode,
  type PersonnelAddBody,
  type PersonnelUpdateBody,
  type SerialNumberEnableBody,
  type SerialNumberState,
  type SignConfig,
  type SiteRow,
  type StageCreateBody,
  type StageCrf,
  type StageCrfImportBody,
  type StageCrfUpdateBody,
  type StageUpdateBody,
  type Study,
  type StudyCreateBody,
  type StudyDiseases,
  type StudyMember,
  type StudyQr,
  type StudyRole,
  type StudyRoleCreateBody,
  type StudyRoleDetail,
  type StudyRoleUpdateBody,
  type StudyUpdateBody,
} from '@ecrf/core';
import { http, type RequestOptions } from './request';

/** The shapes of these calls are core's contract (study-contract.ts and beside it); named here as pages import them. */
export { BASE_FIELD_NAMES } from '@ecrf/core';
export type {
  BaseConfigField,
  BaseFieldName,
  CandidateUser,
  CrfDetail,
  CrfExistingChoice,
  CrfExportFormat,
  CrfFileResult,
  CrfIssue,
  CrfListItem as CrfOption,
  CrfPlannedForm,
  CrfRow,
  CrfStage,
  CrfStageSummary,
  CrfUploadResult,
  CrfVersion,
  Disease,
  FollowTrigger,
  MyStudyRole,
  PermissionNode,
  SerialNumberPattern,
  SerialNumberState,
  SerialScope,
  SignConfig,
  SiteRow,
  StageCrf,
  Study,
  StudyDiseases,
  StudyMember,
  StudyQr,
  StudyRole,
} from '@ecrf/core';

/** docs/api.md "Studies and their setup": status 0 进行中, 1 已结束. */
export const STUDY_STATUS = { ongoing: 0, finished: 1 } as const;

/** What the study dialogs and settings send: an edit's fields, all optional, and a new study's diseases. */
export type StudyBody = Omit<StudyUpdateBody, 'id'> & Pick<StudyCreateBody, 'diseases'> & { id?: number };

/** The user's answers to an upload's plan, sent as form fields. */
export interface CrfUploadChoices {
  dryRun?: boolean;
  onExisting?: Record<string, CrfExistingChoice>;
  /** A new version of an existing CRF goes into its draft (a production study, issue 36) instead of publishing. */
  draft?: boolean;
}

interface Paging {
  pageNum: number;
  pageSize: number;
}

const LOAD_ALL = { pageNum: 1, pageSize: LOAD_ALL_PAGE_SIZE };

/** A study field left empty is sent as absent: the server takes absent fields as "unchanged". */
function withoutNulls<B extends object>(body: B): B {
  return Object.fromEntries(Object.entries(body).filter(([, value]) => value !== null && value !== undefined)) as B;
}

export const studyApi = {
  /**
   * The studies the user takes part in. platform §9: the open list asks for pageNum 1 without a
   * page size; the caller leaves pageSize out while it is the server's default.
   */
  openList: (params: { pageNum: number; pageSize?: number; studyName?: string } = { pageNum: 1 }) =>
    http.get<Page<Study>>('/api/business/study/list', { params }),
  /** Every study the user may pick in the setup pages (the load-all variant). */
  allMine: () => http.get<Page<Study>>('/api/business/study/list', { params: LOAD_ALL }),
  manageList: (params: Paging & { studyName?: string; status?: number }) =>
    http.get<Page<Study>>('/api/business/study/manage/list', { params }),
  get: (id: number) => http.get<Study>(`/api/business/study/${id}`),
  add: (body: StudyBody) => http.post<Study>('/api/business/study', withoutNulls(body)),
  update: (body: StudyBody & { id: number }) => http.put<Study>('/api/business/study', withoutNulls(body)),
  remove: (id: number) => http.delete<null>(`/api/business/study/${id}`),
  /** The dialog tells the failure itself (您未参与该项目), so the wrapper stays quiet. */
  qrCode: (studyId: number | string) => http.get<StudyQr>(`/api/business/study/u_qr_code/${studyId}`, { silent: true }),
  setDoubt: (studyId: number, doubt: '0' | '1') => http.post<null>('/api/business/study/doubt', { studyId, doubt }),
  getDoubt: (studyId: number) => http.get<'0' | '1'>(`/api/business/study/doubt/${studyId}`),
  signConfig: (studyId: number) => http.get<SignConfig>('/api/business/study/sign_config', { params: { studyId } }),
  serialNumber: (studyId: number) =>
    http.get<SerialNumberState>('/api/v2/business/study/serial_number', { params: { studyId } }),
  enableSerialNumber: (body: SerialNumberEnableBody) =>
    http.put<SerialNumberState>('/api/v2/business/study/serial_number/enable', body),
  closeSerialNumber: (studyId: number) =>
    http.put<SerialNumberState>('/api/v2/business/study/serial_number/close', { studyId }),
  followTrigger: (studyId: number) =>
    http.get<FollowTrigger>('/api/v1/business/study/follow_trigger', { params: { studyId } }),
  saveFollowTrigger: (body: FollowTriggerBody) => http.put<null>('/api/v1/business/study/follow_trigger', body),
};

export const studyRoleApi = {
  list: (studyId: number) => http.get<StudyRole[]>('/api/system/studyRoles', { params: { studyId } }),
  tree: (studyId: number) => http.get<PermissionNode[]>('/api/system/studyRole/tree', { params: { studyId } }),
  get: (id: number) => http.get<StudyRoleDetail>('/api/system/studyRole', { params: { id } }),
  add: (body: StudyRoleCreateBody) => http.post<StudyRoleDetail>('/api/system/studyRole', body),
  update: (body: StudyRoleUpdateBody) => http.put<StudyRoleDetail>('/api/system/studyRole', body),
  remove: (id: number) => http.delete<null>('/api/system/studyRole', { params: { id } }),
};

export const personnelApi = {
  list: (params: Paging & { studyId: number; name?: string }) =>
    http.get<Page<StudyMember>>('/api/business/study_personnel/list', { params }),
  uncommitted: (studyId: number, name?: string) =>
    http.get<CandidateUser[]>('/api/business/study_personnel/uncommitted', { params: { studyId, name } }),
  add: (body: PersonnelAddBody) => http.post<null>('/api/business/study_personnel', body),
  update: (body: PersonnelUpdateBody) => http.put<null>('/api/business/study_personnel', body),
  remove: (id: number) => http.delete<null>('/api/business/study_personnel', { params: { id } }),
  /**
   * Sites come from the department tree, which only administrators of users may read; without
   * that right the picker is simply left out and the user's own department is used.
   */
  sites: () => http.get<SiteRow[]>('/api/system/dept/list', { silent: true }),
};

function uploadForm(studyId: number, files: readonly File[], choices: CrfUploadChoices) {
  const form = new FormData();
  form.append('studyId', String(studyId));
  if (choices.dryRun) form.append('dryRun', '1');
  if (choices.draft) form.append('draft', 'true');
  if (choices.onExisting) form.append('onExisting', JSON.stringify(choices.onExisting));
  for (const file of files) form.append('file', file);
  return form;
}

export const crfApi = {
  page: (params: Paging & { studyId: number; title?: string }) =>
    http.get<Page<CrfRow>>('/api/system/crfs', { params }),
  options: (studyId: number) => http.get<CrfListItem[]>('/api/system/crf/list', { params: { studyId } }),
  get: (id: number, version?: number) => http.get<CrfDetail>(`/api/system/crf/${id}`, { params: { version } }),
  /** Refusals come back as data.errors; the page shows them in its own dialog. */
  upload: (studyId: number, file: File, choices: CrfUploadChoices = {}, options?: RequestOptions) =>
    http.post<CrfUploadResult>('/api/system/crf', uploadForm(studyId, [file], choices), { ...options, silent: true }),
  uploadMany: (studyId: number, files: readonly File[], choices: CrfUploadChoices = {}, options?: RequestOptions) =>
    http.post<CrfFileResult[]>('/api/system/crf/multi', uploadForm(studyId, files, choices), {
      ...options,
      silent: true,
    }),
  remove: (studyId: number, crfId: number) => http.delete<null>('/api/system/crf', { params: { studyId, crfId } }),
  export: (crfId: number, format: CrfExportFormat, version?: number) =>
    http.download('/api/system/crf/export', { method: 'POST', data: { crfId, version, format } }),
  template: () => http.download('/api/system/crf/template'),
};

export const stageApi = {
  tree: (studyId: number) => http.get<CrfStage[]>('/api/business/crf_menu/crf_stages', { params: { studyId } }),
  get: (id: number) => http.get<CrfStageSummary>('/api/business/crf_menu/crf_stage', { params: { id } }),
  add: (body: StageCreateBody) => http.post<CrfStageSummary>('/api/business/crf_menu/crf_stage', body),
  update: (body: StageUpdateBody) => http.put<CrfStageSummary>('/api/business/crf_menu/crf_stage', body),
  remove: (id: number) => http.delete<null>('/api/business/crf_menu/crf_stage', { params: { id } }),
  crfs: (id: number) => http.get<StageCrf[]>('/api/business/crf_menu/crf_stage/crfs', { params: { id } }),
  importCrfs: (body: StageCrfImportBody) => http.post<null>('/api/business/crf_menu/crf_stage/crf/import', body),
  updateCrf: (body: StageCrfUpdateBody) => http.put<null>('/api/business/crf_menu/crf_stage/crf', body),
  removeCrf: (crfStageId: number, crfId: number) =>
    http.delete<null>('/api/business/crf_menu/crf_stage/crf', { params: { crfStageId, crfId } }),
};

export const diseaseApi = {
  get: (studyId: number) => http.get<StudyDiseases>(`/api/business/study_disease/${studyId}`),
  setMulti: (studyId: number, multiDisease: boolean) =>
    http.put<null>('/api/business/study_disease/multi_disease', { studyId, multiDisease }),
  add: (body: DiseaseCreateBody) => http.post<Disease>('/api/business/study_disease/disease', body),
  update: (body: DiseaseUpdateBody) => http.put<null>('/api/business/study_disease/disease', body),
  remove: (id: number) => http.delete<null>('/api/business/study_disease/disease', { params: { id } }),
  crfs: (id: number) => http.get<number[]>(`/api/business/study_disease/disease/crf/${id}`),
  setCrfs: (studyDiseaseId: number, crfVO: number[]) =>
    http.put<null>('/api/business/study_disease/disease/crf', { crfVO }, { params: { studyDiseaseId } }),
};
