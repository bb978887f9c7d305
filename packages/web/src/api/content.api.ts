import type { Page } from '@ecrf/core';
import { http } from './request';

/** Patient-facing content and medical records (docs/content.md): knowledge, experts, hospitals, medicals. */
export type ArticleStatus = 'draft' | 'published';

export interface KnowledgeType {
  id: number;
  name: string;
  sort: number;
}

export interface Article {
  id: number;
  studyId: number | null;
  platform: boolean;
  typeId: number;
  typeName: string | null;
  title: string;
  summary: string | null;
  coverKey: string | null;
  coverUrl: string | null;
  status: ArticleStatus;
  publishTime: string | null;
  createTime: string;
  updateTime: string;
  content?: string;
}

export interface ArticleBody {
  studyId: number;
  platform: boolean;
  typeId: number;
  title: string;
  summary?: string | null;
  coverKey?: string | null;
  content: string;
  status: ArticleStatus;
}

export interface Expert {
  id: number;
  name: string;
  photoKey: string | null;
  photoUrl: string | null;
  title: string | null;
  hospital: string | null;
  department: string | null;
  specialty: string | null;
  introduction: string | null;
  sort: number;
}

export interface Hospital {
  id: number;
  name: string;
  introduction: string | null;
  address: string | null;
  contact: string | null;
  phone: string | null;
  sort: number;
}

export interface MedicalFile {
  fileKey: string;
  fileName: string;
}

export interface MedicalRecord {
  id: number;
  subjectId: number;
  identificationCode: string | null;
  subjectName: string | null;
  title: string;
  category: string;
  visitDate: string | null;
  hospital: string | null;
  note: string | null;
  files: MedicalFile[];
  crfDataRecordId: number | null;
  crfId: number | null;
  crfTitle: string | null;
  createTime: string;
}

export interface LinkableRecord {
  crfDataRecordId: number;
  crfId: number;
  crfTitle: string;
  createTime: string;
}

export const knowledgeApi = {
  types: () => http.get<KnowledgeType[]>('/api/v1/knowledge/types'),
  list: (params: {
    studyId: number;
    pageNum: number;
    pageSize: number;
    typeId?: number | undefined;
    status?: ArticleStatus | undefined;
    keyword?: string | undefined;
  }) => http.get<Page<Article>>('/api/v1/knowledges', { params }),
  get: (studyId: number, id: number) => http.get<Article>(`/api/v1/knowledge/${id}`, { params: { studyId } }),
  add: (body: ArticleBody) => http.post<Article>('/api/v1/knowledge', body),
  edit: (id: number, body: ArticleBody) => http.put<Article>(`/api/v1/knowledge/${id}`, body),
  remove: (studyId: number, id: number) => http.delete<null>(`/api/v1/knowledge/${id}`, { params: { studyId } }),
  /** A picture for patient-facing content: answered with its public URL. */
  uploadImage: (studyId: number, file: File) => {
    const form = new FormData();
    form.append('file', file);
    return http.post<{ fileKey: string; url: string; fileName: string }>('/api/v1/content/image', form, {
      params: { studyId },
    });
  },
  publicList: (params: {
    studyId?: number | undefined;
    keyword?: string | undefined;
    pageNum: number;
    pageSize: number;
  }) => http.get<Page<Article>>('/api/ignore/knowledges', { params }),
  publicGet: (id: number) => http.get<Article>(`/api/ignore/knowledge/${id}`),
};

export const expertApi = {
  list: (params: { studyId: number; pageNum: number; pageSize: number; keyword?: string | undefined }) =>
    http.get<Page<Expert>>('/api/v1/experts', { params }),
  add: (body: Omit<Expert, 'id' | 'photoUrl' | 'sort'> & { studyId: number }) =>
    http.post<Expert>('/api/v1/expert', body),
  edit: (id: number, body: Omit<Expert, 'id' | 'photoUrl' | 'sort'> & { studyId: number }) =>
    http.put<Expert>(`/api/v1/expert/${id}`, body),
  remove: (studyId: number, id: number) => http.delete<null>(`/api/v1/expert/${id}`, { params: { studyId } }),
};

export const hospitalApi = {
  list: (studyId: number) => http.get<Hospital[]>('/api/v1/hospital', { params: { studyId } }),
  add: (body: Omit<Hospital, 'id' | 'sort'> & { studyId: number }) => http.post<Hospital>('/api/v1/hospital', body),
  edit: (id: number, body: Omit<Hospital, 'id' | 'sort'> & { studyId: number }) =>
    http.put<Hospital>(`/api/v1/hospital/${id}`, body),
};

export interface MedicalBody {
  studyId: number;
  subjectId: number;
  title: string;
  category: string;
  visitDate?: string | null;
  hospital?: string | null;
  note?: string | null;
  files: MedicalFile[];
}

export const medicalApi = {
  list: (params: { studyId: number; pageNum: number; pageSize: number; keyword?: string | undefined }) =>
    http.get<Page<MedicalRecord>>('/api/v1/medicals', { params }),
  add: (body: MedicalBody) => http.post<MedicalRecord>('/api/v1/medical', body),
  edit: (id: number, body: MedicalBody & { reason: string }) => http.put<MedicalRecord>(`/api/v1/medical/${id}`, body),
  remove: (studyId: number, id: number, reason: string) =>
    http.delete<null>(`/api/v1/medical/${id}`, { params: { studyId, reason } }),
  linkable: (studyId: number, subjectId: number) =>
    http.get<LinkableRecord[]>('/api/v1/medical/crfs', { params: { studyId, subjectId } }),
  linkCrf: (body: { studyId: number; id: number; crfDataRecordId: number | null; reason?: string | null }) =>
    http.put<MedicalRecord>('/api/v1/medical/crf', body),
  file: (studyId: number, id: number, fileKey: string) =>
    http.download(`/api/v1/medical/${id}/file`, { params: { studyId, fileKey } }),
};
