import type {
  CustomVisitBody,
  FollowCrfOption,
  FollowDateChangeBody,
  FollowDraft,
  FollowDraftBody,
  FollowDraftImpact,
  FollowDraftPublishBody,
  FollowOverview,
  FollowPlan,
  FollowPlanBody,
  FollowPlanRow,
  FollowPlanVisitBody,
  FollowRecord,
  FollowRecordCrf,
  FollowRecordFilter,
  FollowRecordStatusBody,
  FollowVisitCrf,
  FollowVisitForm,
  Page,
  Paging,
} from '@ecrf/core';
import { http } from './request';

/** Follow-up's request and answer shapes are core's contract (follow/contract.ts); the pages import them here. */
export type {
  CustomVisitBody,
  FollowDraft,
  FollowDraftBody,
  FollowDraftImpact,
  FollowOverview,
  FollowOverviewPerson,
  FollowOverviewVisit,
  FollowPlan,
  FollowPlanBody,
  FollowPlanRow,
  FollowRecord,
  FollowRecordCrf,
  FollowRecordFilter,
} from '@ecrf/core';

/** One visit of a plan, as the plan dialog edits and sends it. */
export type FollowPlanVisit = FollowPlanVisitBody;

/** forms §7 Follow-up: every call of the plans and the patients' visits. */
export const followApi = {
  overview: (studyId: number) => http.get<FollowOverview>('/api/business/follow/overview', { params: { studyId } }),
  plans: (params: Paging & { studyId: number; planName?: string }) =>
    http.get<Page<FollowPlanRow>>('/api/business/follows', { params }),
  plan: (id: number) => http.get<FollowPlan>(`/api/business/follow/${id}`),
  createPlan: (body: FollowPlanBody) => http.post<{ id: number }>('/api/business/follow', body),
  updatePlan: (body: FollowPlanBody) =>
    http.put<{ id: number; rescheduledPatients: number }>('/api/business/follow', body),
  /** Without removePending the call is silent: a plan with pending visits answers 409 and the page asks first. */
  removePlan: (id: number, removePending: boolean) =>
    http.delete<{ removedPending: number }>(`/api/business/follow/${id}`, {
      params: removePending ? { removePending: true } : {},
      silent: !removePending,
    }),
  crfs: (studyId: number) => http.get<FollowCrfOption[]>('/api/business/follow/crfs', { params: { studyId } }),
  /** A production study's plan draft (草稿): null while none is open. */
  draft: (studyId: number, planId: number) =>
    http.get<FollowDraft | null>('/api/business/follow/draft', { params: { studyId, planId } }),
  saveDraft: (body: FollowDraftBody) => http.put<{ planId: number }>('/api/business/follow/draft', body),
  discardDraft: (studyId: number, planId: number) =>
    http.delete<{ planId: number }>('/api/business/follow/draft', { params: { studyId, planId } }),
  draftImpact: (studyId: number, planId: number) =>
    http.get<FollowDraftImpact>('/api/business/follow/draft/impact', { params: { studyId, planId } }),
  publishDraft: (body: FollowDraftPublishBody) =>
    http.post<{ amendmentId: number; rescheduledPatients: number }>('/api/business/follow/draft/publish', body),
  records: (params: Paging & FollowRecordFilter & { studyId: number }) =>
    http.get<Page<FollowRecord>>('/api/business/follow/records', { params }),
  setStatus: (body: FollowRecordStatusBody) =>
    http.put<{ followRecordId: number }>('/api/business/follow/record/status', body),
  /** `quiet` for the CRF page's sidebar: a refusal there shows no message, the visits simply do not appear. */
  subjectFollows: (subjectRecordId: number, quiet = false) =>
    http.get<FollowRecord[]>('/api/business/subject/follows', { params: { subjectRecordId }, silent: quiet }),
  schedule: (subjectRecordId: number) =>
    http.post<{ changed: boolean }>('/api/business/subject/follow', { subjectRecordId }),
  changeDate: (body: FollowDateChangeBody) =>
    http.put<{ followRecordId: number }>('/api/business/subject/follow/record', body),
  removeRecord: (followRecordId: number, reason: string) =>
    http.delete<null>('/api/business/subject/follow/record', { params: { followRecordId, reason } }),
  addCustom: (body: CustomVisitBody) =>
    http.put<{ followRecordId: number }>('/api/business/subject/follow/custom', body),
  recordCrfs: (followRecordId: number) =>
    http.get<FollowVisitForm[]>('/api/business/subject/follow/crfs', {
      params: { followRecordId },
    }),
  recordCrf: (followRecordId: number, crfId: number) =>
    http.get<FollowVisitCrf>('/api/business/subject/follow/crf', {
      params: { followRecordId, crfId },
    }),
  recordCrfById: (followRecordCrfId: number) =>
    http.get<FollowVisitCrf>('/api/v2/business/subject/follow/crf', {
      params: { followRecordCrfId },
    }),
};

/** The CRF page address of one visit form: its record when one was filled, else a new one tied to the visit. */
export function followCrfUrl(
  subjectRecordId: number,
  crf: Pick<FollowRecordCrf, 'followRecordCrfId' | 'crfId' | 'crfDataRecordId'>,
): string {
  const base = `/crf/${subjectRecordId}?crfId=${crf.crfId}`;
  return crf.crfDataRecordId
    ? `${base}&crfDataRecordId=${crf.crfDataRecordId}`
    : `${base}&crfDataRecordId=new&followRecordCrfId=${crf.followRecordCrfId}`;
}
