import type {
  AmendmentMigrateBody,
  AmendmentRow,
  CrfDraft,
  ImpactFindingKind,
  ImpactRecordRow,
  ImpactSummaryView,
  Job,
  MigrationResult,
  Page,
} from '@ecrf/core';
import { JOBS_PATH } from './jobs.api';
import { http } from './request';

/**
 * CRF drafts and amendments (issue 36, 方案修订): a production study edits a CRF through a draft, publishing it
 * records an amendment with its impact report, and the records still on older versions move in a background job.
 * The shapes follow the contract; the server (modules/study/crf*, the amendment routes) answers them.
 */

/** The shapes are core's contract (amendment-contract.ts); named here as the pages use them. */
export type { CrfDraft, ImpactRecordRow, MigrationResult, MigrationScope } from '@ecrf/core';

/** What a value of a live record would undergo under the new version. */
export type ImpactKind = ImpactFindingKind;
/** The impact report: the definition diff, the live records' counts and the findings per kind and item. */
export type ImpactSummary = ImpactSummaryView;
/** An item of the definition diff; which fields are present depends on the list it is in. */
export type ImpactItem = ImpactSummaryView['diff']['added'][number];
export type ImpactFinding = ImpactSummaryView['findings'][number];
/** A row of 方案修订: `remaining` counts the live records still on older versions. */
export type Amendment = AmendmentRow;
export type MigrateBody = AmendmentMigrateBody;

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
