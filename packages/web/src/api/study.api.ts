import { LOAD_ALL_PAGE_SIZE, type CrfDefinition, type Page } from '@ecrf/core';
import { http, type RequestOptions } from './request';

/** docs/api.md "Studies and their setup": status 0 进行中, 1 已结束. */
export const STUDY_STATUS = { ongoing: 0, finished: 1 } as const;

export type SerialScope = 'study' | 'site';

export interface SerialNumberPattern {
  prefix: string;
  digits: number;
  scope: SerialScope;
}

export interface SignConfig {
  enabled: boolean;
  meaning: string;
}

export interface FollowTrigger {
  enabled: boolean;
  crfId: number | null;
  itemName: string | null;
  offsetDays: number;
}

/** A patient field of the study's base-info config (platform §3). */
export interface BaseConfigField {
  name: BaseFieldName;
  header: string;
  display: boolean;
  required: boolean;
}

/** docs/api.md: the patient fields a study configures, in the order the patient dialog shows them. */
export const BASE_FIELD_NAMES = [
  'identificationCode',
  'subjectName',
  'gender',
  'birth',
  'age',
  'mobile',
  'idNumber',
  'diseaseCode',
] as const;
export type BaseFieldName = (typeof BASE_FIELD_NAMES)[number];

export interface Disease {
  id: number;
  diseaseName: string;
  diseaseCode: string;
  crfVO?: number[];
}

export interface MyStudyRole {
  studyRoleId: number;
  roleName: string;
  permissions: string[];
  /** The member's own sites (分中心): where their new patients go. */
  sites?: Array<{ deptId: number; deptName: string }>;
}

export interface Study {
  id: number;
  studyName: string;
  studyCode: string;
  description: string | null;
  principal: string | null;
  status: number;
  doubt: '0' | '1';
  /** IANA zone: "today", date defaults and shown times are in it. */
  timeZone: string;
  /** 入组目标: patients to enrol, and the date to reach it by (null: none). */
  enrolmentTarget?: number | null;
  enrolmentTargetDate?: string | null;
  multiDisease: boolean;
  enableSerialNumber: boolean;
  serialNumber: SerialNumberPattern;
  displayCrfColumn: string[];
  signConfig: SignConfig;
  followTrigger: FollowTrigger;
  baseConfig: BaseConfigField[];
  diseases: Disease[];
  memberCount: number;
  subjectCount: number;
  creater: string | null;
  createTime: string;
  myRole: MyStudyRole | null;
}

export interface StudyBody {
  id?: number;
  /** Why a finished study (已结束) is set back to 进行中: required for that change, audited. */
  reason?: string;
  studyName?: string;
  studyCode?: string;
  description?: string | null;
  principal?: string | null;
  status?: number;
  doubt?: '0' | '1';
  timeZone?: string;
  enrolmentTarget?: number | null;
  enrolmentTargetDate?: string | null;
  diseases?: Array<{ diseaseName: string; diseaseCode: string }>;
  displayCrfColumn?: string[];
  signConfig?: SignConfig;
  baseConfig?: BaseConfigField[];
}

export interface SerialNumberState extends SerialNumberPattern {
  enableSerialNumber: boolean;
  /** The next code the pattern gives. */
  preview: string;
}

export interface StudyQr {
  qrCode: string;
  content?: string;
}

/** A node of GET /api/system/studyRole/tree. */
export interface PermissionNode {
  key: string;
  title: string;
  children?: PermissionNode[];
}

export interface StudyRole {
  id: number;
  studyId: number;
  roleName: string;
  remark: string | null;
  permissions: string[];
  memberCount: number;
  createTime: string;
}

export interface StudyRoleBody {
  id?: number;
  studyId?: number;
  roleName: string;
  remark?: string | null;
  permissions: string[];
}

export interface StudyMember {
  id: number;
  studyId: number;
  userId: number;
  userName: string;
  name: string;
  deptId: number | null;
  deptName: string | null;
  /** The member's sites (分中心): their patients are the ones they see without 查看全部中心数据. */
  siteIds: number[];
  siteNames: string[];
  studyRoleId: number;
  roleName: string;
  createTime: string;
}

export interface CandidateUser {
  userId: number;
  userName: string;
  name: string;
  deptId: number | null;
  deptName: string | null;
}

export interface CrfRow {
  id: number;
  studyId: number;
  title: string;
  version: number;
  versionCount: number;
  itemCount: number;
  source: string;
  hasData: boolean;
  creater: string | null;
  createTime: string;
  updateTime: string | null;
}

export interface CrfOption {
  id: number;
  title: string;
  version: number;
}

export interface CrfVersion {
  version: number;
  source: string;
  creater: string | null;
  createTime: string;
}

export interface CrfDetail {
  id: number;
  studyId: number;
  title: string;
  version: number;
  definition: CrfDefinition;
  versions: CrfVersion[];
}

/** A linter finding as the upload answers it. */
export interface CrfIssue {
  path: string;
  message: string;
}

/** What an upload would do with one form (the server's plan, answered by a dry run or a 409). */
export interface CrfPlannedForm {
  title: string;
  action: 'create' | 'version';
  storedTitle: string;
  crfId?: number;
  version: number;
  existing?: { crfId: number; currentVersion: number; hasData: boolean; choice?: CrfExistingChoice };
}

/** For a title the study already has: its next version, or a new CRF beside it. */
export type CrfExistingChoice = 'version' | 'new';

export interface CrfUploadChoices {
  dryRun?: boolean;
  onExisting?: Record<string, CrfExistingChoice>;
}

export interface CrfUploadResult {
  crfs: CrfOption[];
  warnings: CrfIssue[];
  notes: string[];
  /** Present on a dry run. */
  plan?: CrfPlannedForm[];
}

export interface CrfFileResult {
  fileName: string;
  ok: boolean;
  crfs?: CrfOption[];
  errors?: CrfIssue[];
  warnings?: CrfIssue[];
  notes?: string[];
  plan?: CrfPlannedForm[];
}

export type CrfExportFormat = 'json' | 'excel' | 'odm' | 'redcap';

/** A form placed in a stage: repeat 1 = single form, 0 = repeatable (forms §3). */
export interface StageCrf {
  crfId: number;
  title: string;
  repeat: 0 | 1;
  orderNum: number;
}

export interface CrfStage {
  id: number;
  parentId: number;
  studyId: number;
  name: string;
  orderNum: number;
  crfs: StageCrf[];
  children?: CrfStage[];
}

export interface StudyDiseases {
  multiDisease: boolean;
  diseases: Disease[];
}

/** A department as the site pickers need it (GET /api/system/dept/list). */
export interface SiteRow {
  deptId: number;
  parentId: number;
  deptName: string;
  orderNum: number | null;
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
  enableSerialNumber: (body: SerialNumberPattern & { studyId: number }) =>
    http.put<SerialNumberState | null>('/api/v2/business/study/serial_number/enable', body),
  closeSerialNumber: (studyId: number) =>
    http.put<SerialNumberState | null>('/api/v2/business/study/serial_number/close', { studyId }),
  followTrigger: (studyId: number) =>
    http.get<FollowTrigger>('/api/v1/business/study/follow_trigger', { params: { studyId } }),
  saveFollowTrigger: (body: FollowTrigger & { studyId: number }) =>
    http.put<FollowTrigger | null>('/api/v1/business/study/follow_trigger', body),
};

export const studyRoleApi = {
  list: (studyId: number) => http.get<StudyRole[]>('/api/system/studyRoles', { params: { studyId } }),
  tree: (studyId: number) => http.get<PermissionNode[]>('/api/system/studyRole/tree', { params: { studyId } }),
  get: (id: number) => http.get<StudyRole>('/api/system/studyRole', { params: { id } }),
  add: (body: StudyRoleBody & { studyId: number }) => http.post<StudyRole>('/api/system/studyRole', body),
  update: (body: StudyRoleBody & { id: number }) => http.put<StudyRole>('/api/system/studyRole', body),
  remove: (id: number) => http.delete<null>('/api/system/studyRole', { params: { id } }),
};

export const personnelApi = {
  list: (params: Paging & { studyId: number; name?: string }) =>
    http.get<Page<StudyMember>>('/api/business/study_personnel/list', { params }),
  uncommitted: (studyId: number, name?: string) =>
    http.get<CandidateUser[]>('/api/business/study_personnel/uncommitted', { params: { studyId, name } }),
  add: (body: { studyId: number; userIds: number[]; studyRoleId: number; siteIds?: number[] }) =>
    http.post<null>('/api/business/study_personnel', body),
  update: (body: { id: number; studyRoleId: number; siteIds?: number[] }) =>
    http.put<null>('/api/business/study_personnel', body),
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
  if (choices.onExisting) form.append('onExisting', JSON.stringify(choices.onExisting));
  for (const file of files) form.append('file', file);
  return form;
}

export const crfApi = {
  page: (params: Paging & { studyId: number; title?: string }) =>
    http.get<Page<CrfRow>>('/api/system/crfs', { params }),
  options: (studyId: number) => http.get<CrfOption[]>('/api/system/crf/list', { params: { studyId } }),
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
  get: (id: number) => http.get<CrfStage>('/api/business/crf_menu/crf_stage', { params: { id } }),
  add: (body: { studyId: number; parentId: number; name: string; orderNum?: number }) =>
    http.post<CrfStage>('/api/business/crf_menu/crf_stage', body),
  update: (body: { id: number; name: string; orderNum?: number; parentId?: number }) =>
    http.put<CrfStage>('/api/business/crf_menu/crf_stage', body),
  remove: (id: number) => http.delete<null>('/api/business/crf_menu/crf_stage', { params: { id } }),
  crfs: (id: number) => http.get<StageCrf[]>('/api/business/crf_menu/crf_stage/crfs', { params: { id } }),
  importCrfs: (body: { crfStageId: number; crfIds: number[]; repeat: 0 | 1 }) =>
    http.post<null>('/api/business/crf_menu/crf_stage/crf/import', body),
  updateCrf: (body: { crfStageId: number; crfId: number; repeat?: 0 | 1; orderNum?: number }) =>
    http.put<null>('/api/business/crf_menu/crf_stage/crf', body),
  removeCrf: (crfStageId: number, crfId: number) =>
    http.delete<null>('/api/business/crf_menu/crf_stage/crf', { params: { crfStageId, crfId } }),
};

export const diseaseApi = {
  get: (studyId: number) => http.get<StudyDiseases>(`/api/business/study_disease/${studyId}`),
  setMulti: (studyId: number, multiDisease: boolean) =>
    http.put<null>('/api/business/study_disease/multi_disease', { studyId, multiDisease }),
  add: (body: { studyId: number; diseaseName: string; diseaseCode: string }) =>
    http.post<Disease>('/api/business/study_disease/disease', body),
  update: (body: { id: number; diseaseName: string; diseaseCode: string }) =>
    http.put<Disease>('/api/business/study_disease/disease', body),
  remove: (id: number) => http.delete<null>('/api/business/study_disease/disease', { params: { id } }),
  crfs: (id: number) => http.get<number[]>(`/api/business/study_disease/disease/crf/${id}`),
  setCrfs: (studyDiseaseId: number, crfVO: number[]) =>
    http.put<null>('/api/business/study_disease/disease/crf', { crfVO }, { params: { studyDiseaseId } }),
};
