import type {
  FormStateFilter,
  Page,
  PatientSearchField,
  SearchColumn,
  SearchConditions,
  SearchKind,
  SearchOperator,
} from '@ecrf/core';
import { http } from './request';

/** Data retrieval (platform §7 Search): the builder's dictionary, the search, templates and the exportable forms. */

export interface SearchOption {
  value: string;
  label: string;
}

export interface SearchPatientField {
  field: PatientSearchField;
  title: string;
  kind: SearchKind;
  operators: SearchOperator[];
  options: SearchOption[];
}

export interface SearchItem {
  name: string;
  title: string;
  /** The title after its list group's or table's title (`用药记录 › 药物名称`); the title for a form's own item. */
  path: string;
  type: string;
  kind: SearchKind;
  options: SearchOption[];
  /** The unit conditions are written in (the first); `units` all of a unit selector's, converted to the first. */
  unit: string;
  units: string[];
  operators: SearchOperator[];
  /** The list group or table whose rows hold the item; null for a value of the form itself. */
  group: { name: string; title: string; type: string } | null;
}

export interface SearchStage {
  stageId: number;
  name: string;
}

export interface SearchCrf {
  crfId: number;
  title: string;
  repeatable: boolean;
  stages: SearchStage[];
  items: SearchItem[];
}

/** GET /api/business/search/dics: what the caller may search (forms they may view, identifiers only with permission). */
export interface SearchDics {
  patientFields: SearchPatientField[];
  crfs: SearchCrf[];
  formStates: Array<{ code: FormStateFilter; label: string }>;
  recordSeparator: string;
  /** Between the rows of a list group in one result cell. */
  rowSeparator: string;
}

export interface SearchRow {
  subjectRecordId: number;
  subjectId: number;
  identificationCode: string;
  /** Column key (searchColumnKey) → the value as text; a repeatable form's records joined in record order. */
  cells: Record<string, string>;
}

export interface SearchResult extends Page<SearchRow> {
  columns: Array<{ key: string; title: string; crfTitle?: string; unit?: string; repeatable?: boolean }>;
}

export interface SearchBody {
  studyId: number;
  conditions: SearchConditions;
  columns: SearchColumn[];
  pageNum: number;
  pageSize: number;
}

export interface SearchTemplate {
  id: number;
  name: string;
  shared: boolean;
  conditions: SearchConditions;
  columns: SearchColumn[];
  ownerId: number;
  ownerName: string;
  mine: boolean;
  canDelete: boolean;
  createTime: string;
}

export interface ExportableCrf {
  crfId: number;
  title: string;
  repeatable: boolean;
  stages: SearchStage[];
  itemCount: number;
}

export const searchApi = {
  dics: (studyId: number) => http.get<SearchDics>('/api/business/search/dics', { params: { studyId } }),
  // Errors (a form no longer viewable, a bad value) come back with their message for the page to show.
  search: (body: SearchBody) => http.post<SearchResult>('/api/business/search/v2', body),
  exportCrfs: (studyId: number) =>
    http.get<ExportableCrf[]>('/api/business/search/export/crfs', { params: { studyId } }),
  templates: (studyId: number) =>
    http.get<SearchTemplate[]>('/api/business/search/all_templates', { params: { studyId } }),
  saveTemplate: (body: {
    studyId: number;
    name: string;
    shared: boolean;
    conditions: SearchConditions;
    columns: SearchColumn[];
  }) => http.post<{ id: number }>('/api/business/search/template', body),
  removeTemplate: (id: number) => http.delete<null>(`/api/business/search/template/${id}`),
};
