import type {
  Article,
  ArticleBody,
  ContentImage,
  Expert,
  ExpertBody,
  ExpertListQuery,
  Hospital,
  HospitalBody,
  KnowledgeListQuery,
  KnowledgeType,
  LinkableRecord,
  MedicalBody,
  MedicalEditBody,
  MedicalLinkCrfBody,
  MedicalListQuery,
  MedicalRecord,
  Page,
  PublicKnowledgeListQuery,
} from '@ecrf/core';
import { http } from './request';

/**
 * Patient-facing content and medical records (docs/content.md): knowledge, experts, hospitals, medicals. Requests
 * and answers are core's contract (content-contract.ts); the pages import the types they show from here.
 */
export type {
  Article,
  ArticleStatus,
  Expert,
  ExpertBody,
  Hospital,
  HospitalBody,
  MedicalCategory,
  MedicalFile,
  MedicalRecord,
} from '@ecrf/core';

export const knowledgeApi = {
  types: () => http.get<KnowledgeType[]>('/api/v1/knowledge/types'),
  list: (params: KnowledgeListQuery) => http.get<Page<Article>>('/api/v1/knowledges', { params }),
  get: (studyId: number, id: number) => http.get<Article>(`/api/v1/knowledge/${id}`, { params: { studyId } }),
  add: (body: ArticleBody) => http.post<Article>('/api/v1/knowledge', body),
  edit: (id: number, body: ArticleBody) => http.put<Article>(`/api/v1/knowledge/${id}`, body),
  remove: (studyId: number, id: number) => http.delete<null>(`/api/v1/knowledge/${id}`, { params: { studyId } }),
  /** A picture for patient-facing content: answered with its public URL. */
  uploadImage: (studyId: number, file: File) => {
    const form = new FormData();
    form.append('file', file);
    return http.post<ContentImage>('/api/v1/content/image', form, { params: { studyId } });
  },
  publicList: (params: PublicKnowledgeListQuery) => http.get<Page<Article>>('/api/ignore/knowledges', { params }),
  publicGet: (id: number) => http.get<Article>(`/api/ignore/knowledge/${id}`),
};

export const expertApi = {
  list: (params: ExpertListQuery) => http.get<Page<Expert>>('/api/v1/experts', { params }),
  add: (body: ExpertBody) => http.post<Expert>('/api/v1/expert', body),
  edit: (id: number, body: ExpertBody) => http.put<Expert>(`/api/v1/expert/${id}`, body),
  remove: (studyId: number, id: number) => http.delete<null>(`/api/v1/expert/${id}`, { params: { studyId } }),
};

export const hospitalApi = {
  list: (studyId: number) => http.get<Hospital[]>('/api/v1/hospital', { params: { studyId } }),
  add: (body: HospitalBody) => http.post<Hospital>('/api/v1/hospital', body),
  edit: (id: number, body: HospitalBody) => http.put<Hospital>(`/api/v1/hospital/${id}`, body),
};

export const medicalApi = {
  list: (params: MedicalListQuery) => http.get<Page<MedicalRecord>>('/api/v1/medicals', { params }),
  add: (body: MedicalBody) => http.post<MedicalRecord>('/api/v1/medical', body),
  edit: (id: number, body: MedicalEditBody) => http.put<MedicalRecord>(`/api/v1/medical/${id}`, body),
  remove: (studyId: number, id: number, reason: string) =>
    http.delete<null>(`/api/v1/medical/${id}`, { params: { studyId, reason } }),
  linkable: (studyId: number, subjectId: number) =>
    http.get<LinkableRecord[]>('/api/v1/medical/crfs', { params: { studyId, subjectId } }),
  linkCrf: (body: MedicalLinkCrfBody) => http.put<MedicalRecord>('/api/v1/medical/crf', body),
  file: (studyId: number, id: number, fileKey: string) =>
    http.download(`/api/v1/medical/${id}/file`, { params: { studyId, fileKey } }),
};
