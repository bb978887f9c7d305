import { IMPACT_KIND_NAMES, studyModeOf } from '@ecrf/core';
import type { CrfDraft, ImpactKind, ImpactTarget } from '../../../api/amendment.api';
import type { CrfExistingChoice, CrfPlannedForm, CrfRow } from '../../../api/study.api';
import { AMENDMENT_TEXT } from '../../../locales/amendment.zh-CN';
import { positiveIdOf } from '../../../utils/positive-id';
import type { PlannedFile, UploadOutcome } from '../crf/upload-outcome';

/** The impact report's route (a route of the study setup pages, opened from CRF管理 and 方案修订). */
export const IMPACT_PATH = '/study/amendment/impact';

/**
 * A production study (上线) edits its CRFs through drafts; a study in 测试 publishes an upload directly. Read
 * loosely: a study answer without `mode` (a server before issue 36) is taken as in 测试, as it behaved.
 */
export function isProductionStudy(study: object | null | undefined): boolean {
  return studyModeOf((study as { mode?: unknown } | null | undefined)?.mode) === 'production';
}

/** The report's target from its address: `?studyId&crfId` (a draft) or `?studyId&amendmentId` (an amendment). */
export function impactTargetOf(params: URLSearchParams): ImpactTarget | null {
  const studyId = positiveIdOf(params.get('studyId'));
  if (studyId === null) return null;
  const amendmentId = positiveIdOf(params.get('amendmentId'));
  if (amendmentId !== null) return { studyId, amendmentId };
  const crfId = positiveIdOf(params.get('crfId'));
  return crfId === null ? null : { studyId, crfId };
}

/** The address of a target's report; `publish` opens the publish dialog once the report is read. */
export function impactHref(target: ImpactTarget, options: { publish?: boolean } = {}): string {
  const query = new URLSearchParams({ studyId: String(target.studyId) });
  if ('amendmentId' in target) query.set('amendmentId', String(target.amendmentId));
  else query.set('crfId', String(target.crfId));
  if (options.publish) query.set('publish', '1');
  return `${IMPACT_PATH}?${query.toString()}`;
}

export function kindLabel(kind: ImpactKind | string): string {
  return (IMPACT_KIND_NAMES as Record<string, string>)[kind] ?? kind;
}

/** A value of the drill-down as text: lists joined, objects as JSON, nothing as （空）. */
export function valueText(value: unknown): string {
  if (value === null || value === undefined || value === '') return AMENDMENT_TEXT.emptyValue;
  if (Array.isArray(value)) return value.length === 0 ? AMENDMENT_TEXT.emptyValue : value.map(valueText).join('、');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** A CRF row of a production study with its open draft (null: none). */
export type CrfDraftRow = CrfRow & { draft: CrfDraft | null };

/**
 * The rows with their drafts: the server's own `draft` field when the list carries one, else the draft read per
 * row (a page of CRFs is short).
 */
export async function withDrafts(
  rows: readonly CrfRow[],
  readDraft: (crfId: number) => Promise<CrfDraft | null>,
): Promise<CrfDraftRow[]> {
  return Promise.all(
    rows.map(async (row) => {
      const own = (row as Partial<CrfDraftRow>).draft;
      return { ...row, draft: own !== undefined ? own : await readDraft(row.id) };
    }),
  );
}

/**
 * Whether a dry run's plan puts the file into this CRF's draft: exactly one form, a new version of this CRF. The
 * answer is the form's title (the upload's onExisting names it) or why not.
 */
export function draftUploadCheck(
  plan: readonly CrfPlannedForm[] | undefined,
  crf: { id: number; title: string },
): { ok: true; title: string } | { ok: false; message: string } {
  if (!plan || plan.length !== 1) return { ok: false, message: AMENDMENT_TEXT.draftOneForm };
  const [form] = plan as [CrfPlannedForm];
  const crfId = form.existing?.crfId ?? form.crfId;
  if (crfId !== crf.id) return { ok: false, message: AMENDMENT_TEXT.draftWrongForm(form.title, crf.title) };
  return { ok: true, title: form.title };
}

/** The distinct records of a drill-down selection, in the order chosen. */
export function distinctRecordIds(ids: Iterable<number>): number[] {
  return [...new Set(ids)];
}

/**
 * A production study's upload from CRF管理's toolbar, per file: one whose forms are all new versions of existing CRFs
 * goes into their drafts; one that only creates CRFs (or imports a form beside one, 作为新CRF) is stored as before;
 * a file mixing both is refused (a draft upload takes only new versions), to be split by the user.
 */
export function splitForDrafts(
  files: readonly PlannedFile[],
  choices: Readonly<Record<string, CrfExistingChoice>>,
): { publish: File[]; draft: File[]; refused: UploadOutcome[] } {
  const out = { publish: [] as File[], draft: [] as File[], refused: [] as UploadOutcome[] };
  for (const { file, plan } of files) {
    const versions = plan.filter((form) => form.existing && choices[form.title] === 'version').length;
    if (versions === 0) out.publish.push(file);
    else if (versions === plan.length) out.draft.push(file);
    else {
      out.refused.push({
        fileName: file.name,
        ok: false,
        message: AMENDMENT_TEXT.mixedFile,
        crfs: [],
        errors: [],
        warnings: [],
        notes: [],
      });
    }
  }
  return out;
}
