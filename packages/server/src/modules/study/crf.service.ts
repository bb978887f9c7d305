import { and, asc, count, desc, eq, ilike, inArray, max, sql } from 'drizzle-orm';
import { lintDefinition, type CrfDefinition } from '@ecrf/core';
import {
  createExcelTemplate,
  exportExcel,
  exportJson,
  exportOdm,
  exportRedcapDictionary,
  formatImportIssue,
  importLimitBreach,
  type ImportResult,
} from '@ecrf/core/interop';
import type { AppContext } from '../../app-context.js';
import type { Db, Tx } from '../../db/client.js';
import {
  crfDataRecords,
  crfStageCrfs,
  crfVersions,
  crfs,
  studies,
  studyDiseases,
  users,
} from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';
import type { CurrentUser } from '../../shared/current-user.js';
import { pagedQuery } from '../../shared/paged-query.js';
import type { PageRequest } from '../../shared/paging.js';
import { audit, type AuditEntry } from '../audit/audit.service.js';
import type { CrfImportPool, UploadedFile } from './crf-import.pool.js';
import { readForm, type ReadForm } from './crf-definition-facts.js';
import type { CrfSource } from './crf-import.worker.js';
import { grantNewCrfsToFullRoles } from './staff.service.js';
import { planDrafts, recordUploadAmendments, refuseOpenDrafts, storeDrafts } from '../amendment/crf-draft.service.js';

export type { CrfSource, ReadForm };

const notFound = () => AppError.notFound('crf.not_found', 'CRF不存在');

/** What an upload does with a form whose title the study already has. */
export type ExistingChoice = 'version' | 'new';

export interface UploadChoices {
  /** Answer the plan and write nothing. */
  dryRun?: boolean;
  /** Per title already in the study: make its next version, or import the form as a new CRF beside it. */
  onExisting?: Readonly<Record<string, ExistingChoice>>;
  /** Put each form into its CRF's draft (replacing an open one) instead of publishing it (issue 36). */
  draft?: boolean;
}

/** One form of an upload and what storing it would do. */
export interface PlannedForm {
  /** The form's title in the file. */
  title: string;
  /** create: a new CRF (titled `storedTitle`); version: the next version of CRF `crfId`. */
  action: 'create' | 'version';
  /** The title the CRF will have (the file's, or a free one when the user chose to import beside it). */
  storedTitle: string;
  crfId?: number;
  /** The CRF's version after the upload (1 for a new CRF). */
  version: number;
  /** A CRF with this title exists; `choice` says what the user chose, absent until they choose. */
  existing?: { crfId: number; currentVersion: number; hasData: boolean; choice?: ExistingChoice };
}

type StudyCrf = { id: number; title: string; currentVersion: number };

function refuse(issues: ImportResult['issues']): never {
  const errors = issues
    .filter((i) => i.severity === 'error')
    .map((i) => ({ path: [i.form, i.field].filter(Boolean).join('.') || '', message: formatImportIssue(i) }));
  throw AppError.badRequest('crf.invalid', 'CRF定义有误，未导入', { errors });
}

function freeTitle(title: string, taken: ReadonlySet<string>): string {
  for (let n = 2; ; n++) {
    const candidate = `${title.slice(0, 190)}（${n}）`;
    if (!taken.has(candidate)) return candidate;
  }
}

/** Which forms would be created and which would get a new version, given the user's choices so far. */
function planUpload(
  forms: readonly Pick<ReadForm, 'title'>[],
  studyCrfs: readonly StudyCrf[],
  withData: ReadonlySet<number>,
  onExisting: UploadChoices['onExisting'] = {},
): PlannedForm[] {
  const seen = new Set<string>();
  for (const d of forms) {
    if (seen.has(d.title)) throw AppError.badRequest('crf.duplicate_title', `文件中有重名表单：${d.title}，未导入`);
    seen.add(d.title);
  }
  const byTitle = new Map(studyCrfs.map((c) => [c.title, c]));
  const taken = new Set([...byTitle.keys(), ...seen]);
  return forms.map((d) => {
    const crf = byTitle.get(d.title);
    if (!crf) return { title: d.title, action: 'create', storedTitle: d.title, version: 1 };
    const choice = Object.hasOwn(onExisting, d.title) ? onExisting[d.title] : undefined;
    const existing = { crfId: crf.id, currentVersion: crf.currentVersion, hasData: withData.has(crf.id), choice };
    if (choice === 'new') {
      const storedTitle = freeTitle(d.title, taken);
      taken.add(storedTitle);
      return { title: d.title, action: 'create', storedTitle, version: 1, existing };
    }
    return {
      title: d.title,
      action: 'version',
      storedTitle: d.title,
      crfId: crf.id,
      version: crf.currentVersion + 1,
      existing,
    };
  });
}

async function studyCrfsAndData(tx: Db | Tx, studyId: number, lock: boolean) {
  // Locking the study row serialises uploads to one study (two cannot both make "version 3" or both create a
  // title); each statement after the lock sees what the previous upload committed.
  if (lock) await tx.select({ id: studies.studyId }).from(studies).where(eq(studies.studyId, studyId)).for('update');
  const studyCrfs = await tx
    .select({ id: crfs.id, title: crfs.title, currentVersion: crfs.currentVersion })
    .from(crfs)
    .where(eq(crfs.studyId, studyId));
  const withData =
    studyCrfs.length === 0
      ? new Set<number>()
      : new Set(
          (
            await tx
              .selectDistinct({ crfId: crfDataRecords.crfId })
              .from(crfDataRecords)
              .where(
                inArray(
                  crfDataRecords.crfId,
                  studyCrfs.map((c) => c.id),
                ),
              )
          ).map((r) => r.crfId),
        );
  return { studyCrfs, withData };
}

function unconfirmed(plan: readonly PlannedForm[]) {
  return plan.filter((p) => p.existing && !p.existing.choice);
}

function confirmationNeeded(plan: readonly PlannedForm[], warnings: unknown[]) {
  const titles = unconfirmed(plan).map((p) => p.title);
  return new AppError(409, 'crf.confirm_existing', `以下CRF已存在，上传将生成新版本，请确认：${titles.join('、')}`, {
    plan,
    warnings,
  });
}

/**
 * Stores every form of an accepted import in one transaction with a fixed number of statements: forms new to
 * the study become CRFs at version 1 and forms the user chose to version get their next version. A form whose
 * title exists and whose choice is missing stops the upload before anything is written.
 */
export async function storeDefinitions(
  ctx: AppContext,
  user: CurrentUser,
  studyId: number,
  source: CrfSource,
  forms: readonly ReadForm[],
  choices: UploadChoices,
  warnings: unknown[] = [],
) {
  return ctx.db.transaction(async (tx) => {
    const { studyCrfs, withData } = await studyCrfsAndData(tx, studyId, true);
    warnings.push(...missingFormWarnings(forms, studyCrfs));
    const plan = planUpload(forms, studyCrfs, withData, choices.onExisting);
    if (unconfirmed(plan).length > 0) throw confirmationNeeded(plan, warnings);

    const versioned = plan.filter((p) => p.action === 'version').map((p) => p.crfId!);
    await refuseOpenDrafts(tx, versioned);
    if (versioned.length > 0) {
      await tx
        .update(crfs)
        .set({ currentVersion: sql`${crfs.currentVersion} + 1`, updatedAt: ctx.clock() })
        .where(inArray(crfs.id, versioned));
    }
    const creating = plan.filter((p) => p.action === 'create');
    const created =
      creating.length === 0
        ? []
        : await tx
            .insert(crfs)
            .values(creating.map((p) => ({ studyId, title: p.storedTitle, currentVersion: 1, createdBy: user.userId })))
            .returning({ id: crfs.id, title: crfs.title });
    const createdId = new Map(created.map((c) => [c.title, c.id]));
    await grantNewCrfsToFullRoles(
      tx,
      studyId,
      created.map((c) => c.id),
      studyCrfs.map((c) => c.id),
    );

    const stored = plan.map((p, i) => ({
      id: p.crfId ?? createdId.get(p.storedTitle)!,
      title: p.storedTitle,
      version: p.version,
      form: forms[i]!,
    }));
    await tx.insert(crfVersions).values(
      stored.map((s) => ({
        crfId: s.id,
        studyId,
        version: s.version,
        definition: sql`${s.form.json}::jsonb || jsonb_build_object('title', ${s.title}::text, 'id', ${s.id}::integer)`,
        source,
        itemCount: s.form.itemCount,
        publishedAt: ctx.clock(),
        createdBy: user.userId,
      })),
    );
    const audited: AuditEntry[] = stored.map((s) => ({
      studyId,
      crfId: s.id,
      crfVersion: s.version,
      action: 'study.crf.upload',
      itemName: s.title,
      newValue: { title: s.title, version: s.version, source, definitionSha256: s.form.sha256 },
    }));
    await audit(tx, user, ctx.clock(), audited);
    // A production study's new version of a form with live records is an amendment, with its impact report.
    await recordUploadAmendments(
      tx,
      ctx,
      user,
      studyId,
      stored.filter((s) => versioned.includes(s.id)),
    );
    return stored.map(({ id, title, version }) => ({ id, title, version }));
  });
}

/**
 * form("标题", "item") naming a form that is neither in the study nor in this upload: a warning, not a
 * refusal, since forms are often uploaded one by one; until it exists the reference reads blank.
 */
function missingFormWarnings(forms: readonly ReadForm[], studyCrfs: readonly StudyCrf[]) {
  const known = new Set([...studyCrfs.map((c) => c.title), ...forms.map((f) => f.title)]);
  return forms.flatMap((form) =>
    form.formTitles
      .filter((title) => !known.has(title))
      .map((title) => ({
        path: form.title,
        message: `表单“${form.title}”的表达式引用的表单“${title}”在项目中不存在，上传该表单前引用的值为空`,
      })),
  );
}

function warningsOf(issues: ImportResult['issues']) {
  return issues
    .filter((i) => i.severity === 'warning')
    .map((i) => ({ path: [i.form, i.field].filter(Boolean).join('.'), message: formatImportIssue(i) }));
}

async function storeOrPlan(
  ctx: AppContext,
  user: CurrentUser,
  studyId: number,
  source: CrfSource,
  forms: readonly ReadForm[],
  warnings: Array<{ path: string; message: string }>,
  choices: UploadChoices,
) {
  if (choices.draft) {
    if (choices.dryRun) return { crfs: [], plan: await planDrafts(ctx.db, studyId, forms), warnings, notes: [] };
    return { crfs: await storeDrafts(ctx, user, studyId, source, forms), warnings, notes: [] as string[] };
  }
  if (choices.dryRun) {
    const { studyCrfs, withData } = await studyCrfsAndData(ctx.db, studyId, false);
    warnings.push(...missingFormWarnings(forms, studyCrfs));
    return { crfs: [], plan: planUpload(forms, studyCrfs, withData, choices.onExisting), warnings, notes: [] };
  }
  const stored = await storeDefinitions(ctx, user, studyId, source, forms, choices, warnings);
  return { crfs: stored, warnings, notes: [] as string[] };
}

export async function uploadFile(
  ctx: AppContext,
  importer: CrfImportPool,
  user: CurrentUser,
  studyId: number,
  file: UploadedFile,
  choices: UploadChoices = {},
) {
  const read = await importer.read(file);
  if (!read.ok || read.forms.length === 0) refuse(read.issues);
  return storeOrPlan(ctx, user, studyId, read.source, read.forms, warningsOf(read.issues), choices);
}

export async function uploadDefinition(
  ctx: AppContext,
  user: CurrentUser,
  studyId: number,
  definition: unknown,
  choices: UploadChoices = {},
) {
  const lint = lintDefinition(definition);
  if (!lint.ok || !lint.definition) {
    throw AppError.badRequest('crf.invalid', 'CRF定义有误，未导入', {
      errors: lint.errors.map((e) => ({ path: e.path, message: e.message })),
    });
  }
  const breach = importLimitBreach([lint.definition]);
  if (breach) throw AppError.badRequest('crf.too_large', breach);
  const warnings = lint.warnings.map((w) => ({ path: w.path, message: w.message }));
  return storeOrPlan(ctx, user, studyId, 'json', [readForm(lint.definition)], warnings, choices);
}

/** Whether data was ever entered with a CRF (deleted records count: their history refers to it). */
async function crfHasData(ctx: AppContext, crfId: number): Promise<boolean> {
  const [row] = await ctx.db
    .select({ id: crfDataRecords.id })
    .from(crfDataRecords)
    .where(eq(crfDataRecords.crfId, crfId))
    .limit(1);
  return Boolean(row);
}

export async function listCrfs(ctx: AppContext, studyId: number, filter: { title?: string }, page: PageRequest) {
  const where = and(eq(crfs.studyId, studyId), filter.title ? ilike(crfs.title, `%${filter.title}%`) : undefined);
  const { list: rows, total } = await pagedQuery(
    ctx.db.select({ total: count() }).from(crfs).where(where),
    ctx.db
      .select({
        id: crfs.id,
        studyId: crfs.studyId,
        title: crfs.title,
        version: crfs.currentVersion,
        creater: users.name,
        createTime: crfs.createdAt,
        updateTime: crfs.updatedAt,
      })
      .from(crfs)
      .leftJoin(users, eq(users.userId, crfs.createdBy))
      .where(where)
      .orderBy(desc(crfs.updatedAt), desc(crfs.id))
      .$dynamic(),
    page,
  );
  if (rows.length === 0) return { list: [], total };
  const versions = await ctx.db
    .select({
      crfId: crfVersions.crfId,
      version: crfVersions.version,
      source: crfVersions.source,
      itemCount: crfVersions.itemCount,
    })
    .from(crfVersions)
    .where(
      inArray(
        crfVersions.crfId,
        rows.map((r) => r.id),
      ),
    );
  const list = await Promise.all(
    rows.map(async (r) => {
      const mine = versions.filter((v) => v.crfId === r.id);
      const current = mine.find((v) => v.version === r.version);
      return {
        ...r,
        versionCount: mine.length,
        itemCount: current?.itemCount ?? 0,
        source: current?.source ?? 'json',
        hasData: await crfHasData(ctx, r.id),
      };
    }),
  );
  return { list, total };
}

export async function allCrfs(ctx: AppContext, studyId: number) {
  return ctx.db
    .select({ id: crfs.id, title: crfs.title, version: crfs.currentVersion })
    .from(crfs)
    .where(eq(crfs.studyId, studyId))
    .orderBy(asc(crfs.id));
}

export async function getCrf(ctx: AppContext, crfId: number, version?: number) {
  const [crf] = await ctx.db.select().from(crfs).where(eq(crfs.id, crfId));
  if (!crf) throw notFound();
  const versions = await ctx.db
    .select({
      version: crfVersions.version,
      source: crfVersions.source,
      draft: crfVersions.draft,
      creater: users.name,
      createTime: crfVersions.createdAt,
      definition: crfVersions.definition,
    })
    .from(crfVersions)
    .leftJoin(users, eq(users.userId, crfVersions.createdBy))
    .where(eq(crfVersions.crfId, crfId))
    .orderBy(desc(crfVersions.version));
  const wanted = versions.find((v) => v.version === (version ?? crf.currentVersion));
  if (!wanted) throw AppError.notFound('crf.version_not_found', 'CRF版本不存在');
  return {
    id: crf.id,
    studyId: crf.studyId,
    title: crf.title,
    version: wanted.version,
    definition: wanted.definition as CrfDefinition,
    versions: versions.map(({ definition: _d, ...v }) => v),
  };
}

export async function deleteCrf(ctx: AppContext, user: CurrentUser, studyId: number, crfId: number) {
  const [crf] = await ctx.db
    .select()
    .from(crfs)
    .where(and(eq(crfs.id, crfId), eq(crfs.studyId, studyId)));
  if (!crf) throw notFound();
  if (await crfHasData(ctx, crfId)) throw AppError.conflict('crf.has_data', 'CRF已有数据，不能删除');
  await ctx.db.transaction(async (tx) => {
    await tx.delete(crfStageCrfs).where(eq(crfStageCrfs.crfId, crfId));
    const diseases = await tx.select().from(studyDiseases).where(eq(studyDiseases.studyId, studyId));
    for (const d of diseases) {
      if (d.crfIds.includes(crfId)) {
        await tx
          .update(studyDiseases)
          .set({ crfIds: d.crfIds.filter((id) => id !== crfId) })
          .where(eq(studyDiseases.id, d.id));
      }
    }
    await tx.delete(crfVersions).where(eq(crfVersions.crfId, crfId));
    await tx.delete(crfs).where(eq(crfs.id, crfId));
    await audit(tx, user, ctx.clock(), [
      {
        studyId,
        crfId,
        crfVersion: crf.currentVersion,
        action: 'study.crf.delete',
        itemName: crf.title,
        oldValue: { title: crf.title, currentVersion: crf.currentVersion },
      },
    ]);
  });
}

export type ExportFormat = 'json' | 'excel' | 'odm' | 'redcap';

export async function exportCrf(ctx: AppContext, crfId: number, version: number | undefined, format: ExportFormat) {
  const crf = await getCrf(ctx, crfId, version);
  const base = `${crf.title}-v${crf.version}`;
  switch (format) {
    case 'json':
      return {
        fileName: `${base}.json`,
        type: 'application/json; charset=utf-8',
        data: Buffer.from(exportJson(crf.definition)),
      };
    case 'excel':
      return {
        fileName: `${base}.xlsx`,
        type: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
        data: Buffer.from(await exportExcel([crf.definition])),
      };
    case 'odm':
      return {
        fileName: `${base}.xml`,
        type: 'application/xml; charset=utf-8',
        data: Buffer.from(exportOdm([crf.definition])),
      };
    case 'redcap':
      // With a byte-order mark, so Excel on a Chinese Windows opens the Chinese labels as UTF-8.
      return {
        fileName: `${base}.csv`,
        type: 'text/csv; charset=utf-8',
        data: Buffer.from(`\uFEFF${exportRedcapDictionary([crf.definition]).csv}`),
      };
  }
}

export async function excelTemplate() {
  return Buffer.from(await createExcelTemplate());
}

export async function latestVersionNumber(ctx: AppContext, crfId: number) {
  const [row] = await ctx.db
    .select({ v: max(crfVersions.version) })
    .from(crfVersions)
    .where(eq(crfVersions.crfId, crfId));
  return row?.v ?? 0;
}
