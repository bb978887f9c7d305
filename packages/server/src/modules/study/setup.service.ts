import { and, asc, eq, inArray, type SQL } from 'drizzle-orm';
import { buildTree, type AuditAction } from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { crfStageCrfs, crfStages, crfs, studies, studyDiseases } from '../../db/schema/index.js';
import type { Db, Tx } from '../../db/client.js';
import type { CurrentUser } from '../../shared/current-user.js';
import { AppError } from '../../shared/app-error.js';
import { studyOf } from '../../shared/study-of.js';
import { canonicalJson } from '../audit/audit-chain.js';
import { audit, auditRowChanges, type RowChange } from '../audit/audit.service.js';
import { changeStudy } from './study.service.js';

const stageNotFound = () => AppError.notFound('crf_stage.not_found', '阶段不存在');

interface StageNode {
  id: number;
  parentId: number;
  studyId: number;
  name: string;
  orderNum: number;
  crfs: Array<{ crfId: number; title: string; repeat: number; orderNum: number }>;
  children?: StageNode[];
}

/** Forms placed in phases, with their titles, in the sidebar's order; `where` picks a study's or one phase's. */
function placedForms(db: Db, where: SQL) {
  return db
    .select({
      stageId: crfStageCrfs.stageId,
      crfId: crfStageCrfs.crfId,
      title: crfs.title,
      repeat: crfStageCrfs.repeat,
      orderNum: crfStageCrfs.orderNum,
    })
    .from(crfStageCrfs)
    .innerJoin(crfs, eq(crfs.id, crfStageCrfs.crfId))
    .where(where)
    .orderBy(asc(crfStageCrfs.orderNum), asc(crfStageCrfs.crfId));
}

/** The study's visit phases in order and the forms each holds: what the CRF sidebar is built from. */
export async function stagesWithForms(db: Db, studyId: number) {
  const stages = await db
    .select()
    .from(crfStages)
    .where(eq(crfStages.studyId, studyId))
    .orderBy(asc(crfStages.orderNum), asc(crfStages.id));
  const links = await placedForms(db, eq(crfStageCrfs.studyId, studyId));
  return { stages, links };
}

/** The study's visit phases as an ordered tree, each with its forms: what the CRF sidebar shows. */
export async function stageTree(ctx: AppContext, studyId: number) {
  const { stages, links } = await stagesWithForms(ctx.db, studyId);
  const nodes: StageNode[] = stages.map((s) => ({
    id: s.id,
    parentId: s.parentId,
    studyId: s.studyId,
    name: s.name,
    orderNum: s.orderNum,
    crfs: links.filter((l) => l.stageId === s.id).map(({ stageId: _s, ...l }) => l),
  }));
  return buildTree(nodes, (n) => n.id);
}

export async function getStage(ctx: AppContext, id: number) {
  const [row] = await ctx.db.select().from(crfStages).where(eq(crfStages.id, id));
  if (!row) throw stageNotFound();
  return { id: row.id, parentId: row.parentId, studyId: row.studyId, name: row.name, orderNum: row.orderNum };
}

async function checkParent(ctx: AppContext, studyId: number, parentId: number, selfId?: number) {
  if (parentId === 0) return;
  const [parent] = await ctx.db
    .select()
    .from(crfStages)
    .where(and(eq(crfStages.id, parentId), eq(crfStages.studyId, studyId)));
  if (!parent) throw AppError.badRequest('crf_stage.parent_missing', '上级阶段不存在');
  let cursor: number = parent.id;
  const all = await ctx.db
    .select({ id: crfStages.id, parentId: crfStages.parentId })
    .from(crfStages)
    .where(eq(crfStages.studyId, studyId));
  while (cursor !== 0) {
    if (cursor === selfId) throw AppError.badRequest('crf_stage.parent_cycle', '上级阶段不能是自己或下级阶段');
    cursor = all.find((s) => s.id === cursor)?.parentId ?? 0;
  }
}

type StageRow = typeof crfStages.$inferSelect;
const stageView = (s: StageRow) => ({ name: s.name, parentId: s.parentId, orderNum: s.orderNum });

/** The visit plan decides which forms a patient is asked for: its changes are audited like the study's settings. */
async function auditStage(
  tx: Tx,
  user: CurrentUser,
  at: Date,
  action: AuditAction,
  before: StageRow | null,
  after: StageRow | null,
) {
  const row = (after ?? before)!;
  await audit(tx, user, at, [
    {
      studyId: row.studyId,
      action,
      itemName: `stage:${row.id}`,
      oldValue: before && stageView(before),
      newValue: after && stageView(after),
    },
  ]);
}

export async function createStage(
  ctx: AppContext,
  user: CurrentUser,
  input: { studyId: number; parentId: number; name: string; orderNum?: number },
) {
  await checkParent(ctx, input.studyId, input.parentId);
  const row = await ctx.db.transaction(async (tx) => {
    const [created] = await tx
      .insert(crfStages)
      .values({ studyId: input.studyId, parentId: input.parentId, name: input.name, orderNum: input.orderNum ?? 0 })
      .returning();
    await auditStage(tx, user, ctx.clock(), 'study.stage.create', null, created!);
    return created!;
  });
  return getStage(ctx, row.id);
}

export async function updateStage(
  ctx: AppContext,
  user: CurrentUser,
  input: { id: number; name: string; orderNum?: number; parentId?: number },
) {
  const stage = await getStage(ctx, input.id);
  if (input.parentId !== undefined) await checkParent(ctx, stage.studyId, input.parentId, input.id);
  await ctx.db.transaction(async (tx) => {
    const [before] = await tx.select().from(crfStages).where(eq(crfStages.id, input.id)).for('update');
    if (!before) throw stageNotFound();
    const at = ctx.clock();
    const [after] = await tx
      .update(crfStages)
      .set({
        name: input.name,
        ...(input.orderNum !== undefined && { orderNum: input.orderNum }),
        ...(input.parentId !== undefined && { parentId: input.parentId }),
        updatedAt: at,
      })
      .where(eq(crfStages.id, input.id))
      .returning();
    if (canonicalJson(stageView(before)) !== canonicalJson(stageView(after!))) {
      await auditStage(tx, user, at, 'study.stage.update', before, after!);
    }
  });
  return getStage(ctx, input.id);
}

export async function deleteStage(ctx: AppContext, user: CurrentUser, id: number) {
  await getStage(ctx, id);
  const [child] = await ctx.db.select({ id: crfStages.id }).from(crfStages).where(eq(crfStages.parentId, id)).limit(1);
  if (child) throw AppError.conflict('crf_stage.has_children', '存在下级阶段，不允许删除');
  await ctx.db.transaction(async (tx) => {
    const [removed] = await tx.delete(crfStages).where(eq(crfStages.id, id)).returning();
    if (removed) await auditStage(tx, user, ctx.clock(), 'study.stage.delete', removed, null);
  });
}

export async function stageCrfs(ctx: AppContext, id: number) {
  await getStage(ctx, id);
  const links = await placedForms(ctx.db, eq(crfStageCrfs.stageId, id));
  return links.map(({ stageId: _s, ...l }) => l);
}

async function checkCrfsOfStudy(ctx: AppContext, studyId: number, crfIds: number[]) {
  if (crfIds.length === 0) return;
  const found = await ctx.db
    .select({ id: crfs.id })
    .from(crfs)
    .where(and(eq(crfs.studyId, studyId), inArray(crfs.id, crfIds)));
  if (found.length !== new Set(crfIds).size) throw AppError.badRequest('crf.not_in_study', 'CRF不属于该项目');
}

type StageCrfRow = typeof crfStageCrfs.$inferSelect;
const stageCrfView = (c: StageCrfRow) => ({ repeat: c.repeat, orderNum: c.orderNum });

function auditStageCrfs(
  tx: Tx,
  user: CurrentUser,
  at: Date,
  action: AuditAction,
  changes: Array<RowChange<StageCrfRow>>,
) {
  return auditRowChanges(tx, user, at, action, changes, {
    key: (row) => ({ crfId: row.crfId, itemName: `stage:${row.stageId}` }),
    view: stageCrfView,
  });
}

export async function importCrfsIntoStage(
  ctx: AppContext,
  user: CurrentUser,
  input: { crfStageId: number; crfIds: number[]; repeat: number },
) {
  const stage = await getStage(ctx, input.crfStageId);
  await checkCrfsOfStudy(ctx, stage.studyId, input.crfIds);
  const existing = await stageCrfs(ctx, stage.id);
  let next = existing.reduce((m, c) => Math.max(m, c.orderNum), 0);
  const fresh = [...new Set(input.crfIds)].filter((id) => !existing.some((c) => c.crfId === id));
  if (fresh.length === 0) return;
  await ctx.db.transaction(async (tx) => {
    const added = await tx
      .insert(crfStageCrfs)
      .values(
        fresh.map((crfId) => ({
          stageId: stage.id,
          crfId,
          studyId: stage.studyId,
          repeat: input.repeat,
          orderNum: ++next,
        })),
      )
      .returning();
    await auditStageCrfs(
      tx,
      user,
      ctx.clock(),
      'study.stage.crf.add',
      added.map((after) => ({ before: null, after })),
    );
  });
}

export async function updateStageCrf(
  ctx: AppContext,
  user: CurrentUser,
  input: { crfStageId: number; crfId: number; repeat?: number; orderNum?: number },
) {
  await ctx.db.transaction(async (tx) => {
    const where = and(eq(crfStageCrfs.stageId, input.crfStageId), eq(crfStageCrfs.crfId, input.crfId));
    const [before] = await tx.select().from(crfStageCrfs).where(where).for('update');
    if (!before) throw AppError.notFound('crf_stage.crf_not_found', '该阶段没有这个表单');
    const [after] = await tx
      .update(crfStageCrfs)
      .set({
        ...(input.repeat !== undefined && { repeat: input.repeat }),
        ...(input.orderNum !== undefined && { orderNum: input.orderNum }),
      })
      .where(where)
      .returning();
    if (canonicalJson(stageCrfView(before)) !== canonicalJson(stageCrfView(after!))) {
      await auditStageCrfs(tx, user, ctx.clock(), 'study.stage.crf.update', [{ before, after: after! }]);
    }
  });
}

export async function removeCrfFromStage(ctx: AppContext, user: CurrentUser, crfStageId: number, crfId: number) {
  await ctx.db.transaction(async (tx) => {
    const removed = await tx
      .delete(crfStageCrfs)
      .where(and(eq(crfStageCrfs.stageId, crfStageId), eq(crfStageCrfs.crfId, crfId)))
      .returning();
    await auditStageCrfs(
      tx,
      user,
      ctx.clock(),
      'study.stage.crf.remove',
      removed.map((before) => ({ before, after: null })),
    );
  });
}

export async function diseasesOf(ctx: AppContext, studyId: number) {
  const [study] = await ctx.db
    .select({ multiDisease: studies.multiDisease })
    .from(studies)
    .where(eq(studies.studyId, studyId));
  if (!study) throw AppError.notFound('study.not_found', '项目不存在');
  const rows = await ctx.db
    .select()
    .from(studyDiseases)
    .where(eq(studyDiseases.studyId, studyId))
    .orderBy(asc(studyDiseases.id));
  return {
    multiDisease: study.multiDisease,
    diseases: rows.map((d) => ({ id: d.id, diseaseName: d.diseaseName, diseaseCode: d.diseaseCode, crfVO: d.crfIds })),
  };
}

export async function setMultiDisease(ctx: AppContext, user: CurrentUser, studyId: number, multiDisease: boolean) {
  await changeStudy(ctx, user, studyId, () => ({ multiDisease }));
}

type DiseaseRow = typeof studyDiseases.$inferSelect;
const diseaseView = (d: DiseaseRow) => ({ diseaseName: d.diseaseName, diseaseCode: d.diseaseCode, crfIds: d.crfIds });

/** Diseases decide which forms a patient gets: each change is audited like the study's settings. */
async function auditDisease(tx: Tx, user: CurrentUser, at: Date, before: DiseaseRow | null, after: DiseaseRow | null) {
  const row = (after ?? before)!;
  const action =
    before === null ? 'study.disease.create' : after === null ? 'study.disease.delete' : 'study.disease.update';
  await audit(tx, user, at, [
    {
      studyId: row.studyId,
      action,
      itemName: row.diseaseCode,
      oldValue: before && diseaseView(before),
      newValue: after && diseaseView(after),
    },
  ]);
}

async function checkDiseaseCode(ctx: AppContext, studyId: number, diseaseCode: string, selfId?: number) {
  const rows = await ctx.db
    .select({ id: studyDiseases.id })
    .from(studyDiseases)
    .where(and(eq(studyDiseases.studyId, studyId), eq(studyDiseases.diseaseCode, diseaseCode)));
  if (rows.some((r) => r.id !== selfId)) {
    throw AppError.conflict('disease.code_taken', `病种编码“${diseaseCode}”已存在`);
  }
}

export async function createDisease(
  ctx: AppContext,
  user: CurrentUser,
  input: { studyId: number; diseaseName: string; diseaseCode: string },
) {
  await checkDiseaseCode(ctx, input.studyId, input.diseaseCode);
  const row = await ctx.db.transaction(async (tx) => {
    const [created] = await tx.insert(studyDiseases).values(input).returning();
    await auditDisease(tx, user, ctx.clock(), null, created!);
    return created;
  });
  return { id: row!.id, diseaseName: row!.diseaseName, diseaseCode: row!.diseaseCode, crfVO: row!.crfIds };
}

export async function updateDisease(
  ctx: AppContext,
  user: CurrentUser,
  input: { id: number; diseaseName: string; diseaseCode: string },
) {
  const studyId = await studyOf(ctx, 'studyDiseases', input.id);
  if (studyId === undefined) throw AppError.notFound('disease.not_found', '病种不存在');
  await checkDiseaseCode(ctx, studyId, input.diseaseCode, input.id);
  await changeDisease(ctx, user, input.id, { diseaseName: input.diseaseName, diseaseCode: input.diseaseCode });
}

async function changeDisease(ctx: AppContext, user: CurrentUser, id: number, change: Partial<DiseaseRow>) {
  await ctx.db.transaction(async (tx) => {
    const [before] = await tx.select().from(studyDiseases).where(eq(studyDiseases.id, id)).for('update');
    if (!before) throw AppError.notFound('disease.not_found', '病种不存在');
    const at = ctx.clock();
    const [after] = await tx
      .update(studyDiseases)
      .set({ ...change, updatedAt: at })
      .where(eq(studyDiseases.id, id))
      .returning();
    if (canonicalJson(diseaseView(before)) !== canonicalJson(diseaseView(after!))) {
      await auditDisease(tx, user, at, before, after!);
    }
  });
}

export async function deleteDisease(ctx: AppContext, user: CurrentUser, id: number) {
  await ctx.db.transaction(async (tx) => {
    const [removed] = await tx.delete(studyDiseases).where(eq(studyDiseases.id, id)).returning();
    if (removed) await auditDisease(tx, user, ctx.clock(), removed, null);
  });
}

export async function diseaseCrfs(ctx: AppContext, id: number) {
  const [row] = await ctx.db
    .select({ crfIds: studyDiseases.crfIds })
    .from(studyDiseases)
    .where(eq(studyDiseases.id, id));
  if (!row) throw AppError.notFound('disease.not_found', '病种不存在');
  return row.crfIds;
}

export async function setDiseaseCrfs(ctx: AppContext, user: CurrentUser, id: number, crfIds: number[]) {
  const studyId = await studyOf(ctx, 'studyDiseases', id);
  if (studyId === undefined) throw AppError.notFound('disease.not_found', '病种不存在');
  await checkCrfsOfStudy(ctx, studyId, crfIds);
  await changeDisease(ctx, user, id, { crfIds: [...new Set(crfIds)] });
}
