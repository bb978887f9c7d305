import type {
  AuditExportScope,
  CrfAuditRow,
  CrfDataRow,
  CrfMenuNode,
  CrfOverview,
  CrfPatient,
  CrfRecordDetail,
  CrfSaveBody,
  CrfSaveResult,
  CrfSdvBody,
  SdvMark,
  SignConfig,
  Signature,
  UploadedFile,
} from '@ecrf/core';
import { http, type RequestOptions } from './request';
import { rememberFileNames } from '../stores/file-names.store';

/** docs/api.md "CRF page": a form's state on the CRF menu (CRF-08). */
export { FORM_STATE, type FormStateCode } from '@ecrf/core';

/** The key of a whole-form verification mark in a record's sdv map. */
export const FORM_SDV_KEY = '__form__';

/** The CRF page's request and answer shapes are core's contract (crf-record-contract.ts); the pages import them here. */
export type {
  AuditExportScope,
  CrfAuditRow,
  CrfDataRecord,
  CrfDataRow,
  CrfDoubtMark,
  CrfMenuNode,
  CrfOverview,
  CrfPatient,
  CrfPermissions,
  CrfRecordDetail,
  CrfSaveBody,
  CrfSaveResult,
  FileLink,
  ItemIssue,
  OverviewForm,
  SdvMark,
  Signature,
  SignatureState,
  StaleRecord,
  UploadedFile,
} from '@ecrf/core';

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
  sdv: (body: CrfSdvBody) => http.put<Record<string, SdvMark>>('/api/business/crf/sdv', body),
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
  signConfig: (studyId: number) => http.get<SignConfig>('/api/business/study/sign_config', { params: { studyId } }),
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
