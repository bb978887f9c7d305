import type {
  ConsultAnswerBody,
  ConsultAskBody,
  ConsultCloseBody,
  ConsultListQuery,
  ConsultView,
  Page,
} from '@ecrf/core';
import { http } from './request';

/** 在线咨询 calls (docs/content.md, Consultation); requests and answers are core's contract (consult-contract.ts). */
export const consultApi = {
  /** KNOW-05: advisory/manager/list, paged, waiting questions first. */
  list: (params: ConsultListQuery) => http.get<Page<ConsultView>>('/api/v1/advisory/manager/list', { params }),
  get: (studyId: number, id: number) =>
    http.get<ConsultView>(`/api/v1/advisory/manager/${id}`, { params: { studyId } }),
  /** A question entered by staff on a patient's behalf. */
  add: (body: ConsultAskBody) => http.post<ConsultView>('/api/v1/advisory/manager', body),
  answer: (studyId: number, id: number, answer: string) =>
    http.put<ConsultView>(`/api/v1/advisory/manager/${id}/answer`, { studyId, answer } satisfies ConsultAnswerBody),
  close: (studyId: number, id: number) =>
    http.put<ConsultView>(`/api/v1/advisory/manager/${id}/close`, { studyId } satisfies ConsultCloseBody),
};
