import { and, eq, inArray, sql } from 'drizzle-orm';
import type { AppContext } from '../../app-context.js';
import type { Db } from '../../db/client.js';
import { amendments, crfDataRecords, crfVersions, crfs, studies, users } from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';
import type { CurrentUser } from '../../shared/current-user.js';
import { audit } from '../audit/audit.service.js';
import type { CrfSource, ReadForm } from '../study/crf.service.js';
import { impactOf, type Impact } from './amendment-impact.service.js';

/**
 * A CRF's draft (草稿, issue 36): one crf_versions row per CRF with draft = true, numbered currentVersion + 1.
 * crfs.currentVersion stays the newest published version, so every reader of the published form is unchanged; only
 * test patients fill the draft (draft-version.service.ts). Publishing the draft makes it the current version and records an
 * amendment with its impact report; the records stay on their version until the migration moves them.
 */

const noCrf = () => AppError.notFound('crf.not_found', 'CRF不存在');
const noDraft = () => AppError.notFound('crf.draft_not_found', '该CRF没有草稿');

type DraftRow = typeof crfVersions.$inferSelect;

async function crfOf(db: Db, studyId: number, crfId: number, lock = false) {
  const query = db
    .select()
    .from(crfs)
    .where(and(eq(crfs.id, crfId), eq(crfs.studyId, studyId)));
  const [crf] = lock ? await query.for('update') : await query;
  if (!crf) throw noCrf();
  return crf;
}

/** The CRF's open draft row, if any. */
export async function draftRowOf(db: Db, crfId: number): Promise<DraftRow | undefined> {
  const [row] = await db
    .select()
    .from(crfVersions)
    .where(and(eq(crfVersions.crfId, crfId), eq(crfVersions.draft, true)));
  return row;
}

async function shown(db: Db, row: DraftRow) {
  const [creator] = row.createdBy
    ? await db.select({ name: users.name }).from(users).where(eq(users.userId, row.createdBy))
    : [];
  return {
    version: row.version,
    itemCount: row.itemCount,
    createdAt: row.createdAt.toISOString(),
    createdByName: creator?.name ?? null,
  };
}

export async function getDraft(ctx: AppContext, studyId: number, crfId: number) {
  await crfOf(ctx.db, studyId, crfId);
  const row = await draftRowOf(ctx.db, crfId);
  return row ? shown(ctx.db, row) : null;
}

/** Opens a draft as a copy of the current version; a second draft of the same CRF is refused. */
export async function openDraft(ctx: AppContext, user: CurrentUser, studyId: number, crfId: number) {
  const row = await ctx.db.transaction(async (tx) => {
    const crf = await crfOf(tx, studyId, crfId, true);
    if (await draftRowOf(tx, crfId)) throw AppError.conflict('crf.draft_exists', '该CRF已有未发布的草稿');
    const version = crf.currentVersion + 1;
    const [current] = await tx
      .select({ source: crfVersions.source, itemCount: crfVersions.itemCount })
      .from(crfVersions)
      .where(and(eq(crfVersions.crfId, crfId), eq(crfVersions.version, crf.currentVersion)));
    if (!current) throw AppError.notFound('crf.version_not_found', 'CRF版本不存在');
    // The definition is copied inside the database: a large form's JSON never passes through the event loop.
    const [inserted] = await tx
      .insert(crfVersions)
      .values({
        crfId,
        studyId,
        version,
        definition: sql`(select definition from crf_versions where crf_id = ${crfId} and version = ${crf.currentVersion})`,
        source: current.source,
        itemCount: current.itemCount,
        draft: true,
        publishedAt: null,
        createdBy: user.userId,
        createdAt: ctx.clock(),
      })
      .returning();
    await audit(tx, user, ctx.clock(), [
      {
        studyId,
        crfId,
        crfVersion: version,
        action: 'study.crf.draft',
        itemName: crf.title,
        newValue: { title: crf.title, version, copiedFrom: crf.currentVersion },
      },
    ]);
    return inserted;
  });
  return shown(ctx.db, row);
}

/**
 * Discards the draft. Records test patients filled against it go back to the current version (their values kept,
 * as a migration keeps them): a record never names a version that does not exist.
 */
export async function discardDraft(ctx: AppContext, user: CurrentUser, studyId: number, crfId: number) {
  await ctx.db.transaction(async (tx) => {
    const crf = await crfOf(tx, studyId, crfId, true);
    const draft = await draftRowOf(tx, crfId);
    if (!draft) throw noDraft();
    const now = ctx.clock();
    const back = await tx
      .update(crfDataRecords)
      .set({ crfVersion: crf.currentVersion, version: sql`${crfDataRecords.version} + 1`, updatedAt: now })
      .where(and(eq(crfDataRecords.crfId, crfId), eq(crfDataRecords.crfVersion, draft.version)))
      .returning({ id: crfDataRecords.id, subjectRecordId: crfDataRecords.subjectRecordId });
    await tx.delete(crfVersions).where(eq(crfVersions.id, draft.id));
    await audit(tx, user, now, [
      {
        studyId,
        crfId,
        crfVersion: draft.version,
        action: 'study.crf.draft_discard',
        itemName: crf.title,
        oldValue: { title: crf.title, version: draft.version },
      },
      ...back.map((r) => ({
        studyId,
        subjectRecordId: r.subjectRecordId,
        crfDataRecordId: r.id,
        crfId,
        crfVersion: crf.currentVersion,
        action: 'crf.migrate' as const,
        oldValue: draft.version,
        newValue: crf.currentVersion,
        reason: '放弃CRF草稿',
      })),
    ]);
  });
}

/** The drafts an upload with `draft` would write: each form must be a new version of a CRF the study has. */
export async function planDrafts(db: Db, studyId: number, forms: readonly Pick<ReadForm, 'title'>[]) {
  const titles = forms.map((f) => f.title);
  if (new Set(titles).size !== titles.length) {
    throw AppError.badRequest('crf.duplicate_title', '文件中有重名表单，未导入');
  }
  const found =
    titles.length === 0
      ? []
      : await db
          .select({ id: crfs.id, title: crfs.title, currentVersion: crfs.currentVersion })
          .from(crfs)
          .where(and(eq(crfs.studyId, studyId), inArray(crfs.title, titles)));
  const byTitle = new Map(found.map((c) => [c.title, c]));
  return forms.map((f) => {
    const crf = byTitle.get(f.title);
    if (!crf) {
      throw AppError.badRequest('crf.draft_unknown', `草稿只能上传已有CRF的新版本，项目中没有表单：${f.title}`);
    }
    return {
      title: f.title,
      action: 'version' as const,
      storedTitle: f.title,
      crfId: crf.id,
      version: crf.currentVersion + 1,
      existing: { crfId: crf.id, currentVersion: crf.currentVersion, hasData: false, choice: 'version' as const },
    };
  });
}

/** An upload with `draft: true`: each form replaces (or opens) its CRF's draft; nothing is published. */
export async function storeDrafts(
  ctx: AppContext,
  user: CurrentUser,
  studyId: number,
  source: CrfSource,
  forms: readonly ReadForm[],
) {
  return ctx.db.transaction(async (tx) => {
    // Serialised with the study's other uploads (crf.service storeDefinitions takes the same row lock).
    await tx.select({ id: studies.studyId }).from(studies).where(eq(studies.studyId, studyId)).for('update');
    const plan = await planDrafts(tx, studyId, forms);
    const now = ctx.clock();
    const stored = [];
    for (const [i, p] of plan.entries()) {
      const form = forms[i]!;
      const definition = sql`${form.json}::jsonb || jsonb_build_object('title', ${p.title}::text, 'id', ${p.crfId}::integer)`;
      const open = await draftRowOf(tx, p.crfId);
      if (open) {
        await tx
          .update(crfVersions)
          .set({ definition, source, itemCount: form.itemCount, createdBy: user.userId, createdAt: now })
          .where(eq(crfVersions.id, open.id));
      } else {
        await tx.insert(crfVersions).values({
          crfId: p.crfId,
          studyId,
          version: p.version,
          definition,
          source,
          itemCount: form.itemCount,
          draft: true,
          publishedAt: null,
          createdBy: user.userId,
          createdAt: now,
        });
      }
      const version = open?.version ?? p.version;
      stored.push({ id: p.crfId, title: p.title, version });
    }
    await audit(
      tx,
      user,
      now,
      stored.map((s, i) => ({
        studyId,
        crfId: s.id,
        crfVersion: s.version,
        action: 'study.crf.draft' as const,
        itemName: s.title,
        newValue: { title: s.title, version: s.version, source, definitionSha256: forms[i]!.sha256 },
      })),
    );
    return stored;
  });
}

/** A direct upload of a CRF's next version while its draft is open would take the draft's number: refused. */
export async function refuseOpenDrafts(db: Db, crfIds: readonly number[]) {
  if (crfIds.length === 0) return;
  const [open] = await db
    .select({ title: crfs.title })
    .from(crfVersions)
    .innerJoin(crfs, eq(crfs.id, crfVersions.crfId))
    .where(and(inArray(crfVersions.crfId, [...crfIds]), eq(crfVersions.draft, true)));
  if (open) throw AppError.conflict('crf.draft_open', `CRF“${open.title}”有未发布的草稿，请先发布或放弃草稿`);
}

/** Inserts the amendment row of a published version and its audit row, inside the publishing transaction. */
export async function recordAmendment(
  tx: Db,
  ctx: AppContext,
  user: CurrentUser,
  a: { studyId: number; crfId: number; title: string; name: string; fromVersion: number; toVersion: number },
  impact: Impact,
) {
  const [row] = await tx
    .insert(amendments)
    .values({
      studyId: a.studyId,
      name: a.name,
      kind: 'crf',
      crfId: a.crfId,
      fromVersion: a.fromVersion,
      toVersion: a.toVersion,
      report: impact.summary,
      createdBy: user.userId,
      createdAt: ctx.clock(),
    })
    .returning({ id: amendments.id });
  await audit(tx, user, ctx.clock(), [
    {
      studyId: a.studyId,
      crfId: a.crfId,
      crfVersion: a.toVersion,
      action: 'study.crf.publish',
      itemName: a.title,
      newValue: { amendmentId: row!.id, name: a.name, fromVersion: a.fromVersion, toVersion: a.toVersion },
    },
  ]);
  return row!.id;
}

/**
 * Publishes the draft: its impact over every live record of the form is computed first (outside the transaction:
 * it reads every record), then in one short transaction the draft becomes the current version and the amendment is
 * recorded with the report's summary.
 */
export async function publishDraft(ctx: AppContext, user: CurrentUser, studyId: number, crfId: number, name: string) {
  const before = await crfOf(ctx.db, studyId, crfId);
  const draft = await draftRowOf(ctx.db, crfId);
  if (!draft) throw noDraft();
  const impact = await impactOf(ctx, { studyId, crfId, fromVersion: before.currentVersion, toVersion: draft.version });
  return ctx.db.transaction(async (tx) => {
    const crf = await crfOf(tx, studyId, crfId, true);
    const still = await draftRowOf(tx, crfId);
    // Another publish, discard or upload since the report was computed: the report no longer describes this draft.
    if (!still || still.id !== draft.id || crf.currentVersion !== before.currentVersion) {
      throw AppError.conflict('crf.draft_changed', '草稿已被他人修改，请刷新后重试');
    }
    const now = ctx.clock();
    await tx.update(crfVersions).set({ draft: false, publishedAt: now }).where(eq(crfVersions.id, draft.id));
    await tx.update(crfs).set({ currentVersion: draft.version, updatedAt: now }).where(eq(crfs.id, crfId));
    const amendmentId = await recordAmendment(
      tx,
      ctx,
      user,
      { studyId, crfId, title: crf.title, name, fromVersion: crf.currentVersion, toVersion: draft.version },
      impact,
    );
    return { amendmentId, version: draft.version };
  });
}

/**
 * A direct upload's new versions in a production study (the API path kept as it was): each CRF that has live
 * records gets an amendment with the impact report of the new version, inside the upload's transaction. The
 * records stay on their version until moved.
 */
export async function recordUploadAmendments(
  tx: Db,
  ctx: AppContext,
  user: CurrentUser,
  studyId: number,
  versioned: ReadonlyArray<{ id: number; title: string; version: number }>,
) {
  if (versioned.length === 0) return;
  const [study] = await tx.select({ mode: studies.mode }).from(studies).where(eq(studies.studyId, studyId));
  if (study?.mode !== 'production') return;
  for (const v of versioned) {
    const scope = { studyId, crfId: v.id, fromVersion: v.version - 1, toVersion: v.version };
    const impact = await impactOf(ctx, scope, tx);
    if (impact.summary.records.total === 0) continue;
    const name = `${v.title} 第${v.version}版（直接上传）`;
    await recordAmendment(
      tx,
      ctx,
      user,
      { studyId, crfId: v.id, title: v.title, name, fromVersion: v.version - 1, toVersion: v.version },
      impact,
    );
  }
}
