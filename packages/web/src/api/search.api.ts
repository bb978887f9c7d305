import type {
  ExportableCrf,
  SearchBody,
  SearchDics,
  SearchResult,
  SearchTemplate,
  SearchTemplateSaveBody,
} from '@ecrf/core';
import { http } from './request';

/** Data retrieval (platform §7 Search): the builder's dictionary, the search, templates and the exportable forms. */

/** Their request and answer shapes are core's contract (search-contract.ts); the pages import them here. */
export type {
  ExportableCrf,
  SearchBody,
  SearchCrf,
  SearchDics,
  SearchItem,
  SearchOption,
  SearchPatientField,
  SearchResult,
  SearchRow,
  SearchStage,
  SearchTemplate,
} from '@ecrf/core';

export const searchApi = {
  dics: (studyId: number) => http.get<SearchDics>('/api/business/search/dics', { params: { studyId } }),
  // Errors (a form no longer viewable, a bad value) come back with their message for the page to show.
  search: (body: SearchBody) => http.post<SearchResult>('/api/business/search/v2', body),
  exportCrfs: (studyId: number) =>
    http.get<ExportableCrf[]>('/api/business/search/export/crfs', { params: { studyId } }),
  templates: (studyId: number) =>
    http.get<SearchTemplate[]>('/api/business/search/all_templates', { params: { studyId } }),
  saveTemplate: (body: SearchTemplateSaveBody) => http.post<{ id: number }>('/api/business/search/template', body),
  removeTemplate: (id: number) => http.delete<null>(`/api/business/search/template/${id}`),
};
