import type { CrfDefinition, CrfOption } from '@ecrf/core';
import { http, type RequestOptions } from './request';
import { rememberFileNames } from '../stores/file-names.store';

/** docs/api.md "CRF page": a form's state on the CRF menu (CRF-08). */
export { FORM_STATE, type FormStateCode } from '@ecrf/core';

/** The key of a whole-form verification mark in a record's sdv map. */
export const FORM_SDV_KEY = '__form__';

/** A node of the CRF menu (CRF-13): stages (type 0) hold forms (type 1). */
export interface CrfMenuNode {
  id: string;
  title: string;
  type: 0 | 1 | 2;
  crfId?: number;
  /** 1 = a single form; anything else = repeatable, with a table of records (CRF-14). */
  repeat?: number;
  state?: number;
  count?: number;
  childrens: CrfMenuNode[];
  /** The study buttons the caller holds (forms §6: button permissions come from the menu). */
  btns: Array<{ code: string; title: string }>;
}

/** The patient as the CRF page sees it (GET /api/business/ducking/patientInfo/{id}). */
export interface CrfPatient {
  id: number;
  studyId: number;
  subjectRecordId: number;
  identificationCode: string;
  subjectName: string;
  gender: number;
  birth: string | null;
  age: number | null;
  mobile: string | null;
  /** 身份证号 when the study records it; masked like name, birth and mobile without 查看患者身份信息. */
  idNumber?: string | null;
  diseaseCode: string;
  openId: string | null;
  qrCode: string | null;
  deptName?: string | null;
  state: number;
  creater: string | null;
  createTime: string;
}

export interface SdvMark {
  by?: number;
  byName: string;
  at: string;
}

export interface CrfDataRecord {
  id: number;
  crfDataRecordId: number;
  version: number;
  crfVersion: number;
  state: number;
  values: Record<string, unknown>;
  sdv: Record<string, SdvMark>;
  createTime: string;
  updateTime: string;
}

/** An open or replied query of the record, for the item markers. */
export interface CrfDoubtMark {
  itemName: string;
  groupName: string | null;
  groupIndex: number | null;
  doubtId: number;
  optionType: number;
  doubtType: number;
}

export interface CrfPermissions {
  view?: boolean;
  save: boolean;
  submit: boolean;
  sdv: boolean;
  sign: boolean;
  doubt: boolean;
}

export interface SignatureState {
  valid: boolean;
  signedAt: string;
  signer: string;
}

/** GET /api/v3/business/crf/{subjectRecordId} (CRF-17). */
export interface CrfRecordDetail {
  crf: { id: number; title: string; version: number; option: CrfOption; definition: CrfDefinition };
  subject: CrfPatient;
  subjectRecord: { id: number; creater: string; state: number };
  subjectState: { crfId: number; subjectRecordId: number; state: number };
  crfDataRecord: CrfDataRecord | null;
  /** Original names of the files the record's values refer to, by file key. */
  files?: Record<string, string>;
  crfDataRecords: Array<{ crfDataRecordId: number; state: number }>;
  crfDoubts: CrfDoubtMark[];
  /** The defaults of a new record ("now" included), or null when a record is open. */
  initialValues: Record<string, unknown> | null;
  /** Values of the patient's other forms that this form's form("标题", "item") calls read, by form title. */
  formValues?: Record<string, Record<string, unknown>>;
  repeat: number;
  /** The study's IANA zone: the page's "today", "now" and shown times. */
  timeZone?: string;
  permissions: CrfPermissions;
  signature: SignatureState | null;
}

/** The body of PUT /api/v3/business/crf (CRF-23). */
export interface CrfSaveBody {
  subjectRecordId: number;
  crfId: number;
  crfDataRecordId: number | null;
  /** The record's version as loaded; 0 for a new record. */
  version: number;
  values: Record<string, unknown>;
  submit: boolean;
  reason: string | null;
  /** One per user action: a retried call answers the first result again. */
  requestId: string;
  /** The follow-up visit form (随访) this save fills: the server ties the record to it. */
  followRecordCrfId?: number;
}

/** A per-item message of the engine as the server returns it. */
export interface ItemIssue {
  itemName: string;
  groupName: string | null;
  groupIndex: number | null;
  message: string;
}

export interface CrfSaveResult {
  crfDataRecordId: number;
  version: number;
  state: number;
  errors: ItemIssue[];
  warnings: ItemIssue[];
  changedItems?: string[];
  repeated?: boolean;
}

/** 409 数据已被他人修改，请刷新后重试: what the record holds now. */
export interface StaleRecord {
  current: {
    crfDataRecordId: number;
    version: number;
    values: Record<string, unknown>;
    updatedBy: number | null;
    updateTime: string;
  };
  changedItems: string[];
}

export interface CrfDataRow {
  crfDataRecordId: number;
  state: number;
  version: number;
  createTime: string;
  updateTime: string;
  creater: string;
  summary: string;
}

/** A stored file a value refers to, with the name it was uploaded with (opened through the download call). */
export interface FileLink {
  fileKey: string;
  fileName: string;
  /** An object of the external mode (object storage): read at this address, not through the download call. */
  url?: string;
}

/**
 * One row of an item's or a form's history. The server puts it into words (core's describeAuditRow):
 * the action's name, the item's title in the row's CRF version, old and new values with labels,
 * units and file names; the raw codes stay beside them.
 */
export interface CrfAuditRow {
  id: number;
  action: string;
  actionName: string;
  itemName: string | null;
  itemTitle: string;
  crfTitle: string | null;
  oldValue: unknown;
  newValue: unknown;
  oldText: string;
  newText: string;
  oldFiles: FileLink[];
  newFiles: FileLink[];
  reason: string | null;
  userName: string;
  createTime: string;
  crfVersion: number | null;
}

/** What an audit CSV covers: the whole study, or what one audit view shows. */
export interface AuditExportScope {
  /** Not needed when a patient or a record is named (their study is). */
  studyId?: number;
  subjectRecordId?: number;
  crfDataRecordId?: number;
  itemName?: string;
}

export interface OverviewForm {
  crfId: number;
  title: string;
  option: CrfOption;
  definition: CrfDefinition;
  records: Array<{ crfDataRecordId: number; values: Record<string, unknown>; state: number }>;
}

/** GET /api/v3/business/overview/{subjectRecordId} (PRINT-09). */
export interface CrfOverview {
  subject: CrfPatient;
  menu: CrfMenuNode[];
  crfs: OverviewForm[];
  /** Original names of the files the records refer to, by file key. */
  files?: Record<string, string>;
}

export interface Signature {
  id: number;
  signer: string;
  meaning: string;
  signedAt: string;
  valid: boolean;
  invalidatedAt: string | null;
  invalidatedReason: string | null;
}

export interface UploadedFile {
  fileKey: string;
  filePath: string;
  fileName: string;
  size: number;
  contentType: string;
}

export const crfRecordApi = {
  /** CRF-20 */
  menu: (subjectRecordId: number) => http.get<CrfMenuNode[]>(`/api/business/crf/menu/${subjectRecordId}`),
  /** CRF-21 */
  detail: (subjectRecordId: number, crfId: number, crfDataRecordId?: number | null) =>
    http
      .get<CrfRecordDetail>(`/api/v3/business/crf/${subjectRecordId}`, {
        params: { crfId, ...(crfDataRecordId ? { crfDataRecordId } : {}) },
      })
      .then((res) => {
        rememberFileNames(res.data.files);
        return res;
      }),
  /**
   * CRF-22: sent as JSON (the server takes form data with the same fields too). Quiet: the page
   * explains refusals on the items, and a conflict in its own dialog.
   */
  save: (body: CrfSaveBody, options?: RequestOptions) =>
    http.put<CrfSaveResult>('/api/v3/business/crf', body, { ...options, silent: true }),
  /** CRF-24 */
  dataList: (subjectRecordId: number, crfId: number) =>
    http.get<CrfDataRow[]>(`/api/business/crf/data/list/${subjectRecordId}`, { params: { crfId } }),
  /** CRF-25/CRF-26: the record and the reason in the query. */
  removeData: (crfDataRecordId: number, reason: string) =>
    http.delete<null>('/api/business/crf/data', { params: { crfDataRecordId, reason } }),
  audit: (crfDataRecordId: number, itemName?: string) =>
    http.get<CrfAuditRow[]>('/api/business/crf/audit', {
      params: { crfDataRecordId, ...(itemName ? { itemName } : {}) },
    }),
  sdv: (body: { crfDataRecordId: number; itemNames?: string[]; verified: boolean }) =>
    http.put<Record<string, SdvMark>>('/api/business/crf/sdv', body),
  /** PRINT-10 */
  overview: (subjectRecordId: number, crfId?: number, crfDataRecordId?: number | null) =>
    http
      .get<CrfOverview>(`/api/v3/business/overview/${subjectRecordId}`, {
        params: { ...(crfId ? { crfId } : {}), ...(crfDataRecordId ? { crfDataRecordId } : {}) },
      })
      .then((res) => {
        rememberFileNames(res.data.files);
        return res;
      }),
  /** SUBJ-22: the patient of a casebook, for the CRF sidebar. */
  patientInfo: (subjectRecordId: number) =>
    http.get<CrfPatient>(`/api/business/ducking/patientInfo/${subjectRecordId}`),
  /** SUBJ-23: a wrong password is the signer's to correct, so the dialog shows it. */
  sign: (body: { subjectRecordId: number; password: string; meaning?: string }) =>
    http.put<Signature>('/api/v1/business/subject/sign', body, { silent: true }),
  signatures: (subjectRecordId: number) =>
    http.get<Signature[]>('/api/business/subject/signatures', { params: { subjectRecordId } }),
  signConfig: (studyId: number) =>
    http.get<{ enabled: boolean; meaning: string }>('/api/business/study/sign_config', { params: { studyId } }),
  /** STUDY-10: the study's doubt flag, '1' when queries are on. */
  studyDoubtFlag: (studyId: number) => http.get<'0' | '1'>(`/api/business/study/doubt/${studyId}`),
  /** PRINT-11 */
  hasPrintTemplate: (crfId: number) => http.get<boolean>('/api/v1/business/crf/print/is_temp', { params: { crfId } }),
  /** PRINT-12: the filled template as a blob. */
  printWord: (params: {
    subjectRecordId: number;
    crfId: number;
    crfDataRecordId?: number | null;
    format?: 'docx' | 'pdf';
  }) =>
    http.download('/api/v1/business/crf/print/word', {
      params: {
        subjectRecordId: params.subjectRecordId,
        crfId: params.crfId,
        ...(params.crfDataRecordId ? { crfDataRecordId: params.crfDataRecordId } : {}),
        ...(params.format ? { format: params.format } : {}),
      },
      silent: true,
    }),
  /** UPL-13/UPL-14: internal-network upload, multipart file + studyId. */
  upload: (
    studyId: number,
    file: File,
    onProgress?: (percent: number) => void,
    /** UPL-17: the key of the video this picture is the first frame of. */
    thumbnailOf?: string,
  ) => {
    const form = new FormData();
    form.append('studyId', String(studyId));
    form.append('file', file);
    return http
      .post<UploadedFile>('/api/common/file/upload', form, {
        params: thumbnailOf === undefined ? { studyId } : { studyId, thumbnailOf },
        silent: true,
        onUploadProgress: (e) => onProgress?.(e.total ? Math.min(100, Math.floor((e.loaded * 100) / e.total)) : 0),
      })
      .then((res) => {
        rememberFileNames({ [res.data.fileKey]: res.data.fileName });
        return res;
      });
  },
  /** The audit trail as CSV (UTF-8 with BOM): the study's, or a patient's, record's or item's. */
  exportAudit: (scope: AuditExportScope) => http.download('/api/business/audit/export', { params: scope }),
  /** CONV-09: a stored file key, fetched with the session (an <img> cannot send the token). */
  downloadFile: (fileKey: string) =>
    http.download('/api/v1/fileupload/downfile', { params: { fileKey }, silent: true }),
};
