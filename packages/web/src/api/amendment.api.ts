import type { Job, Page } from '@ecrf/core';
import { JOBS_PATH } from './jobs.api';
import { http } from './request';

/**
 * CRF drafts and amendments (issue 36, 方案修订): a production study edits a CRF through a draft, publishing it
 * records an amendment with its impact report, and the records still on older versions move in a background job.
 * The shapes follow the contract; the server (modules/study/crf*, the amendment routes) answers them.
 */

/** What a value of a live record would undergo under the new version (core's ValueChangeKind). */
export type ImpactKind = 'removed' | 'hidden' | 'invalid' | 'outOfRange' | 'calculation' | 'converted';
export const IMPACT_KINDS: readonly ImpactKind[] = [
  'removed',
  'hidden',
  'invalid',
  'outOfRange',
  'calculation',
  'converted',
];

/** An item of the definition diff; which fields are present depends on the list it is in. */
export interface ImpactItem {
  name?: string;
  label: string;
  type?: string;
  fromType?: string;
  toType?: string;
  from?: string;
  to?: string;
}

export interface ImpactRecordCounts {
  total: number;
  submitted: number;
  signed: number;
  sdvVerified: number;
  locked: number;
  changed: number;
  unchanged: number;
}

export interface ImpactFinding {
  kind: ImpactKind;
  itemName: string;
  label: string;
  count: number;
}

export interface ImpactSummary {
  crfId?: number;
  fromVersion?: number;
  toVersion?: number;
  diff: { added: ImpactItem[]; removed: ImpactItem[]; renamed: ImpactItem[]; retyped: ImpactItem[] };
  records: ImpactRecordCounts;
  findings: ImpactFinding[];
}

/** One value of one record in the drill-down. */
export interface ImpactRecordRow {
  crfDataRecordId: number;
  subjectRecordId: number;
  identificationCode: string;
  siteName: string | null;
  itemName: string;
  label: string;
  kind: ImpactKind;
  oldValue: unknown;
  newValue: unknown;
  submitted: boolean;
  signed: boolean;
  sdvVerified: boolean;
  locked: boolean;
}

/** The open draft of a CRF, or null. */
export interface CrfDraft {
  version: number;
  itemCount: number;
  createdAt: string;
  createdByName: string | null;
}

export interface Amendment {
  id: number;
  name: string;
  kind: 'crf' | 'follow';
  crfId: number | null;
  crfTitle: string | null;
  followPlanId: number | null;
  fromVersion: number | null;
  toVersion: number | null;
  createdAt: string;
  createdByName: string | null;
  report: Partial<ImpactSummary> | null;
  /** Live records still on older versions. */
  remaining: number;
}

export type MigrationScope =
  { kind: 'all' } | { kind: 'sites'; deptIds: number[] } | { kind: 'records'; crfDataRecordIds: number[] };

export interface MigrateBody {
  studyId: number;
  amendmentId: number;
  reason?: string;
  scope: MigrationScope;
}

/** What a finished migration job answers. */
export interface MigrationResult {
  moved: number;
  changed: number;
  skippedLocked: number;
  failed: number;
}

/**
 * Whose impact a report shows: a CRF's open draft (before publishing), or a published amendment over the records
 * still to move.
 */
export type ImpactTarget = { studyId: number; crfId: number } | { studyId: number; amendmentId: number };

export interface ImpactRecordQuery {
  kind?: ImpactKind;
  itemName?: string;
  pageNum: number;
  pageSize: number;
}

const DRAFT = '/api/system/crf/draft';

const impactPath = (target: ImpactTarget) =>
  'amendmentId' in target ? `/api/business/amendment/${target.amendmentId}/impact` : `${DRAFT}/impact`;
const impactParams = (target: ImpactTarget) =>
  'amendmentId' in target ? { studyId: target.studyId } : { studyId: target.studyId, crfId: target.crfId };

export const amendmentApi = {
  /** The CRF's open draft, or null. */
  draft: (studyId: number, crfId: number) => http.get<CrfDraft | null>(DRAFT, { params: { studyId, crfId } }),
  /** Opens a draft as a copy of the current version. */
  openDraft: (studyId: number, crfId: number) => http.post<CrfDraft | null>(DRAFT, { studyId, crfId }),
  discardDraft: (studyId: number, crfId: number) => http.delete<null>(DRAFT, { params: { studyId, crfId } }),
  publish: (body: { studyId: number; crfId: number; name: string }) =>
    http.post<{ amendmentId: number; version: number }>(`${DRAFT}/publish`, body),

  impact: (target: ImpactTarget) => http.get<ImpactSummary>(impactPath(target), { params: impactParams(target) }),
  /** The drill-down, as a page for the tables (the server answers `{ total, rows }`). */
  impactRecords: (target: ImpactTarget, query: ImpactRecordQuery): Promise<Page<ImpactRecordRow>> =>
    http
      .get<{ total: number; rows: ImpactRecordRow[] }>(`${impactPath(target)}/records`, {
        params: { ...impactParams(target), ...query },
      })
      .then((res) => ({ list: res.data.rows, total: res.data.total })),
  impactExport: (target: ImpactTarget) =>
    http.download(`${impactPath(target)}/export`, { params: impactParams(target) }),

  list: (studyId: number) => http.get<Amendment[]>('/api/business/amendments', { params: { studyId } }),
  migrate: (body: MigrateBody) => http.post<{ jobId: string }>('/api/business/amendment/migrate', body),
  /** The migration's job, read while it runs (polling; a failed read keeps the last state quietly). */
  job: (jobId: string) => http.get<Job>(`${JOBS_PATH}/${jobId}`, { silent: true }),
};

/** A job's result as a migration's counts, or null while it has none. */
export function migrationResultOf(job: Pick<Job, 'result'> | null | undefined): MigrationResult | null {
  const result = job?.result as Partial<MigrationResult> | null | undefined;
  if (!result || typeof result !== 'object' || typeof result.moved !== 'number') return null;
  return {
    moved: result.moved,
    changed: result.changed ?? 0,
    skippedLocked: result.skippedLocked ?? 0,
    failed: result.failed ?? 0,
  };
}
