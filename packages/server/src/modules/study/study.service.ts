// Kept whole (~500 lines): each function reads the study row (studyRow) or writes it through the audited changeStudy.
import { holdLocksExclusive } from '../locks/lock-gate.js';
import { departmentNames, memberSites } from './staff.service.js';
import { and, count, desc, eq, ilike, inArray, isNull, sql, type SQL } from 'drizzle-orm';
import {
  allStudyPermissionKeys,
  DEFAULT_BASE_CONFIG,
  formatSerialNumber,
  spineBandSetOf,
  STUDY_ADMIN_ROLE,
  studyModeOf,
  STUDY_STATUS_FINISHED,
  type SpineBandSet,
} from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import type { Tx } from '../../db/client.js';
import {
  crfs,
  serialCounters,
  studies,
  studyDiseases,
  studyPersonnel,
  studyRoles,
  subjects,
  users,
  type BaseConfigField,
  type FollowTrigger,
  type SignConfig,
} from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';
import type { CurrentUser } from '../../shared/current-user.js';
import { pagedQuery } from '../../shared/paged-query.js';
import type { PageRequest } from '../../shared/paging.js';
import { notTestOfLiveStudy } from '../../shared/test-patients.js';
import { canonicalJson } from '../audit/audit-chain.js';
import { audit } from '../audit/audit.service.js';

export interface StudyInput {
  studyName: string;
  studyCode: string;
  description?: string;
  principal?: string;
  status?: number;
  doubt?: '0' | '1';
  timeZone?: string;
  multiDisease?: boolean;
  displayCrfColumn?: string[];
  signConfig?: SignConfig;
  followTrigger?: FollowTrigger;
  baseConfig?: BaseConfigField[];
  /** 入组目标: patients to enrol (null clears it) and optionally the date to reach it by (YYYY-MM-DD). */
  enrolmentTarget?: number | null;
  enrolmentTargetDate?: string | null;
  spineBandSet?: SpineBandSet;
  diseases?: Array<{ diseaseName: string; diseaseCode: string }>;
}

const notFound = () => AppError.notFound('study.not_found', '项目不存在');
const live = isNull(studies.deletedAt);

type StudyRow = typeof studies.$inferSelect;

const NO_TRIGGER: FollowTrigger = { enabled: false, crfId: null, itemName: null, offsetDays: 0 };

function withDefaults(base: BaseConfigField[]): BaseConfigField[] {
  return DEFAULT_BASE_CONFIG.map((field) => ({ ...field, ...base.find((b) => b.name === field.name) }));
}

/** Every setting a person can change, audited under its column's API name. */
const AUDITED_SETTINGS = [
  'studyName',
  'studyCode',
  'description',
  'principal',
  'status',
  'doubt',
  'multiDisease',
  'enableSerialNumber',
  'serialPrefix',
  'serialDigits',
  'serialScope',
  'displayCrfColumn',
  'signConfig',
  'followTriggers',
  'baseConfig',
  'timeZone',
  'enrolmentTarget',
  'enrolmentTargetDate',
  'spineBandSet',
  'missingCodes',
] as const satisfies ReadonlyArray<keyof StudyRow>;

/**
 * A study's configuration decides what is captured, signed and queried, so a change to it is part
 * of the trial record (GCP), not only of the operation log: one audit row per changed setting with
 * its old and new value, in the transaction that changes it, on the study's hash chain.
 */
export async function changeStudy(
  ctx: AppContext,
  user: CurrentUser,
  studyId: number,
  change: (tx: Tx, before: StudyRow) => Promise<Partial<StudyRow>> | Partial<StudyRow>,
  reason?: string,
): Promise<StudyRow> {
  return ctx.db.transaction(async (tx) => {
    const [before] = await tx
      .select()
      .from(studies)
      .where(and(eq(studies.studyId, studyId), live))
      .for('update');
    if (!before) throw notFound();
    const at = ctx.clock();
    const [after] = await tx
      .update(studies)
      .set({ ...(await change(tx, before)), updatedAt: at })
      .where(eq(studies.studyId, studyId))
      .returning();
    const changed = AUDITED_SETTINGS.filter((key) => canonicalJson(before[key]) !== canonicalJson(after![key]));
    await audit(
      tx,
      user,
      at,
      changed.map((key) => ({
        studyId,
        action: 'study.config',
        itemName: key,
        oldValue: before[key],
        newValue: after![key],
        reason: reason ?? null,
      })),
    );
    return after!;
  });
}

async function present(ctx: AppContext, rows: StudyRow[], viewer?: CurrentUser) {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.studyId);
  const [diseases, members, creators, mine] = await Promise.all([
    ctx.db.select().from(studyDiseases).where(inArray(studyDiseases.studyId, ids)).orderBy(studyDiseases.id),
    ctx.db
      .select({ studyId: studyPersonnel.studyId, n: count() })
      .from(studyPersonnel)
      .where(inArray(studyPersonnel.studyId, ids))
      .groupBy(studyPersonnel.studyId),
    ctx.db
      .select({ userId: users.userId, name: users.name })
      .from(users)
      .where(
        inArray(
          users.userId,
          rows.map((r) => r.createdBy ?? 0),
        ),
      ),
    viewer
      ? ctx.db
          .select({
            studyId: studyPersonnel.studyId,
            studyRoleId: studyRoles.id,
            roleName: studyRoles.roleName,
            permissions: studyRoles.permissions,
            deptId: studyPersonnel.deptId,
            siteIds: studyPersonnel.siteIds,
          })
          .from(studyPersonnel)
          .innerJoin(studyRoles, eq(studyRoles.id, studyPersonnel.studyRoleId))
          .where(and(eq(studyPersonnel.userId, viewer.userId), inArray(studyPersonnel.studyId, ids)))
      : Promise.resolve([]),
  ]);
  const subjectCounts = await subjectCountsOf(ctx, ids);
  const siteNames = await departmentNames(ctx.db, mine.flatMap(memberSites));
  return rows.map((s) => {
    const role = mine.find((m) => m.studyId === s.studyId);
    return {
      id: s.studyId,
      studyName: s.studyName,
      studyCode: s.studyCode,
      description: s.description,
      principal: s.principal,
      status: s.status,
      doubt: s.doubt as '0' | '1',
      timeZone: s.timeZone,
      enrolmentTarget: s.enrolmentTarget,
      enrolmentTargetDate: s.enrolmentTargetDate,
      spineBandSet: spineBandSetOf(s.spineBandSet),
      multiDisease: s.multiDisease,
      enableSerialNumber: s.enableSerialNumber,
      serialNumber: { prefix: s.serialPrefix, digits: s.serialDigits, scope: s.serialScope as 'study' | 'site' },
      displayCrfColumn: s.displayCrfColumn,
      signConfig: s.signConfig,
      followTrigger: s.followTriggers[0] ?? NO_TRIGGER,
      baseConfig: withDefaults(s.baseConfig),
      diseases: diseases
        .filter((d) => d.studyId === s.studyId)
        .map((d) => ({ id: d.id, diseaseName: d.diseaseName, diseaseCode: d.diseaseCode })),
      memberCount: Number(members.find((m) => m.studyId === s.studyId)?.n ?? 0),
      subjectCount: subjectCounts.get(s.studyId) ?? 0,
      creater: creators.find((u) => u.userId === s.createdBy)?.name ?? '',
      createTime: s.createdAt,
      myRole: role
        ? {
            studyRoleId: role.studyRoleId,
            roleName: role.roleName,
            permissions: role.permissions,
            // The member's own sites: where their new patients go (a choice when several). docs/multi-centre.md.
            sites: memberSites(role).map((deptId) => ({ deptId, deptName: siteNames.get(deptId) ?? '' })),
          }
        : null,
      mode: studyModeOf(s.mode),
      wentLiveAt: s.wentLiveAt,
    };
  });
}

async function subjectCountsOf(ctx: AppContext, ids: number[]): Promise<Map<number, number>> {
  const rows = await ctx.db
    .select({ studyId: subjects.studyId, n: count() })
    .from(subjects)
    .where(and(inArray(subjects.studyId, ids), isNull(subjects.deletedAt), notTestOfLiveStudy))
    .groupBy(subjects.studyId);
  return new Map(rows.map((r) => [r.studyId, Number(r.n)]));
}

/** One page of the live studies the condition picks, newest first, with the total they come to. */
async function studyPage(ctx: AppContext, user: CurrentUser, where: SQL | undefined, page: PageRequest) {
  const { list: rows, total } = await pagedQuery(
    ctx.db.select({ total: count() }).from(studies).where(where),
    ctx.db.select().from(studies).where(where).orderBy(desc(studies.createdAt), desc(studies.studyId)).$dynamic(),
    page,
  );
  return { list: await present(ctx, rows, user), total };
}

export async function listMyStudies(
  ctx: AppContext,
  user: CurrentUser,
  all: boolean,
  filter: { studyName?: string },
  page: PageRequest,
) {
  const where = and(
    live,
    filter.studyName ? ilike(studies.studyName, `%${filter.studyName}%`) : undefined,
    all ? undefined : sql`${studies.studyId} in (select study_id from study_personnel where user_id = ${user.userId})`,
  );
  return studyPage(ctx, user, where, page);
}

export async function listAllStudies(
  ctx: AppContext,
  user: CurrentUser,
  filter: { studyName?: string; status?: number },
  page: PageRequest,
) {
  const where = and(
    live,
    filter.studyName ? ilike(studies.studyName, `%${filter.studyName}%`) : undefined,
    filter.status !== undefined ? eq(studies.status, filter.status) : undefined,
  );
  return studyPage(ctx, user, where, page);
}

async function studyRow(ctx: AppContext, studyId: number) {
  const [row] = await ctx.db
    .select()
    .from(studies)
    .where(and(eq(studies.studyId, studyId), live));
  if (!row) throw notFound();
  return row;
}

export async function getStudy(ctx: AppContext, user: CurrentUser, studyId: number) {
  const [study] = await present(ctx, [await studyRow(ctx, studyId)], user);
  return study!;
}

async function checkCodeFree(tx: Tx, studyCode: string, selfId?: number) {
  const [clash] = await tx
    .select({ id: studies.studyId })
    .from(studies)
    .where(
      and(
        eq(studies.studyCode, studyCode),
        live,
        selfId !== undefined ? sql`${studies.studyId} <> ${selfId}` : undefined,
      ),
    );
  if (clash) throw AppError.conflict('study.code_taken', `项目编号“${studyCode}”已存在`);
}

/** A new study, with its 项目管理员 role holding everything and the creator as its first staff member. */
export async function createStudy(ctx: AppContext, user: CurrentUser, input: StudyInput) {
  const studyId = await ctx.db.transaction(async (tx) => {
    await checkCodeFree(tx, input.studyCode);
    const [study] = await tx
      .insert(studies)
      .values({
        studyName: input.studyName,
        studyCode: input.studyCode,
        description: input.description ?? '',
        principal: input.principal ?? '',
        status: input.status ?? 0,
        doubt: input.doubt ?? '1',
        ...(input.timeZone !== undefined && { timeZone: input.timeZone }),
        baseConfig: withDefaults(input.baseConfig ?? []),
        createdBy: user.userId,
      })
      .returning({ studyId: studies.studyId });
    const id = study!.studyId;
    const [role] = await tx
      .insert(studyRoles)
      .values({
        studyId: id,
        roleName: STUDY_ADMIN_ROLE,
        remark: '项目创建时生成，拥有项目内全部权限',
        permissions: allStudyPermissionKeys([]),
      })
      .returning({ id: studyRoles.id });
    await tx
      .insert(studyPersonnel)
      .values({ studyId: id, userId: user.userId, studyRoleId: role!.id, deptId: user.deptId });
    for (const disease of input.diseases ?? []) {
      await tx.insert(studyDiseases).values({ studyId: id, ...disease });
    }
    // The study's first audit row: its settings as created begin its chain.
    const [created] = await tx.select().from(studies).where(eq(studies.studyId, id));
    const settings = Object.fromEntries(AUDITED_SETTINGS.map((key) => [key, created![key]]));
    await audit(tx, user, ctx.clock(), [
      { studyId: id, action: 'study.create', newValue: { ...settings, diseases: input.diseases ?? [] } },
    ]);
    return id;
  });
  return getStudy(ctx, user, studyId);
}

export const REOPEN_REASON_MSG = '重新开启项目需要填写原因';

/**
 * A study set to 已结束 is frozen (lock-gate.ts) until reopened: reopening (1 → 0) needs a reason and is audited as
 * study.reopen beside the status's own study.config row. Finishing it (0 → 1) needs none.
 */
async function reopenRule(tx: Tx, user: CurrentUser, at: Date, before: StudyRow, status: number, reason?: string) {
  if (before.status !== STUDY_STATUS_FINISHED || status === STUDY_STATUS_FINISHED) return;
  if (!reason?.trim()) throw AppError.badRequest('study.reopen_reason_required', REOPEN_REASON_MSG);
  await audit(tx, user, at, [
    {
      studyId: before.studyId,
      action: 'study.reopen',
      oldValue: before.status,
      newValue: status,
      reason: reason.trim(),
    },
  ]);
}

export async function updateStudy(
  ctx: AppContext,
  user: CurrentUser,
  studyId: number,
  input: Partial<StudyInput> & { reason?: string },
) {
  await changeStudy(
    ctx,
    user,
    studyId,
    async (tx, before) => {
      if (input.status !== undefined) await reopenRule(tx, user, ctx.clock(), before, input.status, input.reason);
      // Finishing freezes the study as a study lock does: it waits for writes already past the gate, and writes that
      // come after it read the new status (lock-gate.ts).
      if (input.status === STUDY_STATUS_FINISHED && before.status !== STUDY_STATUS_FINISHED) {
        await holdLocksExclusive(tx, studyId);
      }
      if (input.studyCode) await checkCodeFree(tx, input.studyCode, studyId);
      if (input.followTrigger) await checkTriggerCrfs(tx, studyId, [input.followTrigger]);
      return {
        ...(input.studyName !== undefined && { studyName: input.studyName }),
        ...(input.studyCode !== undefined && { studyCode: input.studyCode }),
        ...(input.description !== undefined && { description: input.description }),
        ...(input.principal !== undefined && { principal: input.principal }),
        ...(input.status !== undefined && { status: input.status }),
        ...(input.doubt !== undefined && { doubt: input.doubt }),
        ...(input.timeZone !== undefined && { timeZone: input.timeZone }),
        ...(input.enrolmentTarget !== undefined && { enrolmentTarget: input.enrolmentTarget }),
        ...(input.enrolmentTargetDate !== undefined && { enrolmentTargetDate: input.enrolmentTargetDate }),
        // A date without a target means nothing: clearing the target clears its date.
        ...(input.enrolmentTarget === null && { enrolmentTargetDate: null }),
        ...(input.spineBandSet !== undefined && { spineBandSet: input.spineBandSet }),
        ...(input.multiDisease !== undefined && { multiDisease: input.multiDisease }),
        ...(input.displayCrfColumn !== undefined && { displayCrfColumn: input.displayCrfColumn }),
        ...(input.signConfig !== undefined && { signConfig: input.signConfig }),
        ...(input.followTrigger !== undefined && { followTriggers: [input.followTrigger] }),
        ...(input.baseConfig !== undefined && { baseConfig: withDefaults(input.baseConfig) }),
      };
    },
    input.reason,
  );
  return getStudy(ctx, user, studyId);
}

export async function deleteStudy(ctx: AppContext, user: CurrentUser, studyId: number) {
  await studyRow(ctx, studyId);
  const counts = await subjectCountsOf(ctx, [studyId]);
  if ((counts.get(studyId) ?? 0) > 0) throw AppError.conflict('study.has_subjects', '项目已有患者数据，不能删除');
  await ctx.db.transaction(async (tx) => {
    const at = ctx.clock();
    await tx.update(studies).set({ deletedAt: at, updatedAt: at }).where(eq(studies.studyId, studyId));
    await audit(tx, user, at, [{ studyId, action: 'study.delete' }]);
  });
}

export async function setDoubt(ctx: AppContext, user: CurrentUser, studyId: number, doubt: '0' | '1') {
  await changeStudy(ctx, user, studyId, () => ({ doubt }));
}

export async function getDoubt(ctx: AppContext, studyId: number) {
  return (await studyRow(ctx, studyId)).doubt as '0' | '1';
}

export async function getSignConfig(ctx: AppContext, studyId: number) {
  return (await studyRow(ctx, studyId)).signConfig;
}

/** The study QR code patients scan; only staff of the study may produce it. */
export async function studyQrCode(ctx: AppContext, studyId: number, origin: string) {
  const study = await studyRow(ctx, studyId);
  const content = `${origin}/project/${study.studyId}/home`;
  const { default: QRCode } = await import('qrcode');
  const qrCode = await QRCode.toDataURL(content, { width: 180, margin: 2 });
  return { qrCode, content };
}

export async function getSerialNumber(ctx: AppContext, studyId: number) {
  const study = await studyRow(ctx, studyId);
  const [counter] = await ctx.db
    .select({ lastValue: serialCounters.lastValue })
    .from(serialCounters)
    .where(and(eq(serialCounters.studyId, studyId), eq(serialCounters.scopeKey, 0)));
  return {
    enableSerialNumber: study.enableSerialNumber,
    prefix: study.serialPrefix,
    digits: study.serialDigits,
    scope: study.serialScope as 'study' | 'site',
    preview: formatSerialNumber(study.serialPrefix, study.serialDigits, (counter?.lastValue ?? 0) + 1),
  };
}

export async function setSerialNumber(
  ctx: AppContext,
  user: CurrentUser,
  studyId: number,
  change: { enabled: boolean; prefix?: string; digits?: number; scope?: 'study' | 'site' },
) {
  await changeStudy(ctx, user, studyId, () => ({
    enableSerialNumber: change.enabled,
    ...(change.prefix !== undefined && { serialPrefix: change.prefix }),
    ...(change.digits !== undefined && { serialDigits: change.digits }),
    ...(change.scope !== undefined && { serialScope: change.scope }),
  }));
  return getSerialNumber(ctx, studyId);
}

/**
 * Takes the next code atomically: the counter row is locked by the update, so concurrent
 * enrolments get consecutive codes with no gap and no duplicate (the caller's transaction
 * rolls the counter back if enrolment fails).
 */
export async function nextSerialNumber(tx: Tx, studyId: number, siteDeptId: number | null) {
  const [study] = await tx.select().from(studies).where(eq(studies.studyId, studyId));
  if (!study) throw notFound();
  const scopeKey = study.serialScope === 'site' ? (siteDeptId ?? 0) : 0;
  const [row] = await tx
    .insert(serialCounters)
    .values({ studyId, scopeKey, lastValue: 1 })
    .onConflictDoUpdate({
      target: [serialCounters.studyId, serialCounters.scopeKey],
      set: { lastValue: sql`${serialCounters.lastValue} + 1` },
    })
    .returning({ lastValue: serialCounters.lastValue });
  return formatSerialNumber(study.serialPrefix, study.serialDigits, row!.lastValue);
}

export async function getFollowTriggers(ctx: AppContext, studyId: number) {
  return (await studyRow(ctx, studyId)).followTriggers;
}

export async function setFollowTriggers(
  ctx: AppContext,
  user: CurrentUser,
  studyId: number,
  triggers: FollowTrigger[],
) {
  await changeStudy(ctx, user, studyId, async (tx) => {
    await checkTriggerCrfs(tx, studyId, triggers);
    return { followTriggers: triggers };
  });
}

/**
 * A trigger names one of the study's own forms: another study's form id would make this study's
 * follow-up plans fire on (and reveal the timing of) data it does not own. One message for an id
 * that exists elsewhere and one that exists nowhere, so the answer tells nothing about other studies.
 */
async function checkTriggerCrfs(tx: Tx, studyId: number, triggers: FollowTrigger[]) {
  const ids = [...new Set(triggers.flatMap((t) => (t.crfId === null ? [] : [t.crfId])))];
  if (ids.length === 0) return;
  const found = await tx
    .select({ id: crfs.id })
    .from(crfs)
    .where(and(eq(crfs.studyId, studyId), inArray(crfs.id, ids)));
  if (found.length !== ids.length) throw AppError.badRequest('study.trigger_crf_missing', '随访触发表单不属于该项目');
}
