import type { OffsetUnit, Page } from '@ecrf/core';
import type { Paging } from '@ecrf/core';
import { http } from './request';

/** One visit of a plan, as the plan dialog edits it. */
export interface FollowPlanVisit {
  id?: number | null;
  visitName: string;
  offset: number;
  unit: OffsetUnit;
  windowBefore: number;
  windowAfter: number;
  repeatEvery?: number | null;
  repeatUntil?: number | null;
  responsibleUserId?: number | null;
  responsibleName?: string | null;
  crfIds: number[];
  crfs?: { crfId: number; title: string }[];
}

export interface FollowPlanRow {
  id: number;
  studyId: number;
  planName: string;
  diseaseCode: string | null;
  remark: string;
  visitCount: number;
  visitNames: string[];
  updateBy: string;
  updateTime: string;
}

export interface FollowPlan {
  id: number;
  studyId: number;
  planName: string;
  diseaseCode: string | null;
  remark: string;
  pendingRecords: number;
  visits: FollowPlanVisit[];
}

export interface FollowPlanBody {
  id?: number;
  studyId: number;
  planName: string;
  diseaseCode?: string | null;
  remark?: string | null;
  visits: FollowPlanVisit[];
  reschedule?: boolean;
}

export interface FollowRecordCrf {
  followRecordCrfId: number;
  crfId: number;
  title: string;
  crfDataRecordId: number | null;
  submitted: boolean;
}

/** One patient visit (随访记录). */
export interface FollowRecord {
  followRecordId: number;
  studyId: number;
  subjectId: number;
  subjectRecordId: number;
  identificationCode: string;
  subjectName: string;
  planId: number | null;
  planName: string;
  visitName: string;
  plannedDate: string;
  windowStart: string;
  windowEnd: string;
  windowBefore: number;
  windowAfter: number;
  state: number;
  stateName: string;
  markReason: string | null;
  completedOn: string | null;
  dateModified: boolean;
  custom: boolean;
  responsibleUserId: number | null;
  responsibleName: string;
  crfs: FollowRecordCrf[];
}

export interface FollowRecordFilter {
  state?: string;
  startDate?: string;
  endDate?: string;
  responsibleUserId?: number;
  keyword?: string;
}

export interface CustomVisitBody {
  subjectRecordId: number;
  visitName: string;
  plannedDate: string;
  windowBefore: number;
  windowAfter: number;
  crfIds: number[];
  responsibleUserId?: number | null;
}

/** Counts of judged visits: on time, late, missed (window passed, not done) and lost, with their rates (0..1). */
export interface FollowJudged {
  onTime: number;
  late: number;
  missed: number;
  lost: number;
  judged: number;
  /** Null while no visit is judged. */
  onTimeRate: number | null;
  completionRate: number | null;
}

export interface FollowOverviewVisit extends FollowJudged {
  planId: number | null;
  planVisitId: number | null;
  planName: string;
  visitName: string;
  /** The study's unplanned visits, counted together. */
  custom: boolean;
  total: number;
  pending: number;
}

export interface FollowOverviewPerson {
  userId: number | null;
  name: string;
  weekPending: number;
  due: number;
  overdue: number;
  done: number;
  lost: number;
  total: number;
}

/** GET /api/business/follow/overview (随访概览). */
export interface FollowOverview extends FollowJudged {
  today: string;
  weekStart: string;
  weekEnd: string;
  thisWeek: { total: number; pending: number; done: number };
  notDue: number;
  due: number;
  overdue: number;
  visits: FollowOverviewVisit[];
  responsible: FollowOverviewPerson[];
  weekVisits: Array<
    Pick<
      FollowRecord,
      | 'followRecordId'
      | 'subjectId'
      | 'subjectRecordId'
      | 'identificationCode'
      | 'subjectName'
      | 'visitName'
      | 'custom'
      | 'plannedDate'
      | 'windowStart'
      | 'windowEnd'
      | 'state'
      | 'stateName'
      | 'responsibleUserId'
      | 'responsibleName'
    >
  >;
}

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
  crfs: (studyId: number) =>
    http.get<{ crfId: number; title: string }[]>('/api/business/follow/crfs', { params: { studyId } }),
  records: (params: Paging & FollowRecordFilter & { studyId: number }) =>
    http.get<Page<FollowRecord>>('/api/business/follow/records', { params }),
  setStatus: (body: { followRecordId: number; action: 'lost' | 'restore'; reason: string }) =>
    http.put<{ followRecordId: number }>('/api/business/follow/record/status', body),
  /** `quiet` for the CRF page's sidebar: a refusal there shows no message, the visits simply do not appear. */
  subjectFollows: (subjectRecordId: number, quiet = false) =>
    http.get<FollowRecord[]>('/api/business/subject/follows', { params: { subjectRecordId }, silent: quiet }),
  schedule: (subjectRecordId: number) =>
    http.post<{ changed: boolean }>('/api/business/subject/follow', { subjectRecordId }),
  changeDate: (body: { followRecordId: number; plannedDate: string; reason: string }) =>
    http.put<{ followRecordId: number }>('/api/business/subject/follow/record', body),
  removeRecord: (followRecordId: number, reason: string) =>
    http.delete<null>('/api/business/subject/follow/record', { params: { followRecordId, reason } }),
  addCustom: (body: CustomVisitBody) =>
    http.put<{ followRecordId: number }>('/api/business/subject/follow/custom', body),
  recordCrfs: (followRecordId: number) =>
    http.get<(FollowRecordCrf & { subjectRecordId: number })[]>('/api/business/subject/follow/crfs', {
      params: { followRecordId },
    }),
  recordCrf: (followRecordId: number, crfId: number) =>
    http.get<FollowRecordCrf & { subjectRecordId: number }>('/api/business/subject/follow/crf', {
      params: { followRecordId, crfId },
    }),
  recordCrfById: (followRecordCrfId: number) =>
    http.get<FollowRecordCrf & { subjectRecordId: number }>('/api/v2/business/subject/follow/crf', {
      params: { followRecordCrfId },
    }),
};

/** The CRF page address of one visit form: its record when one was filled, else a new one tied to the visit. */
export function followCrfUrl(subjectRecordId: number, crf: FollowRecordCrf): string {
  const base = `/crf/${subjectRecordId}?crfId=${crf.crfId}`;
  return crf.crfDataRecordId
    ? `${base}&crfDataRecordId=${crf.crfDataRecordId}`
    : `${base}&crfDataRecordId=new&followRecordCrfId=${crf.followRecordCrfId}`;
}
