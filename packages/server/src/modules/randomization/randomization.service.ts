import crypto from 'node:crypto';
import { and, asc, count, desc, eq, inArray, isNotNull, isNull, sql } from 'drizzle-orm';
import {
  allocationCommitment,
  allStrata,
  buttonKey,
  createRng,
  deriveSeed,
  generateBlockList,
  isBlockMethod,
  maskName,
  minimizationAssign,
  newSeed,
  parseRandomizationConfig,
  parseUploadedList,
  resolveFactorLevel,
  sha256Hex,
  simpleAssign,
  simulationSteps,
  stratumKey,
  type AllocationSlot,
  type MinimizationCounts,
  type RandomizationConfig,
} from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import type { Db } from '../../db/client.js';
import {
  crfDataRecords,
  crfs,
  departments,
  randomizationConfigs,
  randomizationSlots,
  randomizationStrata,
  randomizationStudies,
  randomizations,
  randomizationUnblindings,
  studies,
  studyPersonnel,
  studyRoles,
  subjectRecords,
  subjects,
  users,
} from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';
import type { CurrentUser } from '../../shared/current-user.js';
import type { PageRequest } from '../../shared/paging.js';
import { inCallerSites, subjectInCallerSites } from '../../shared/patient-site.js';
import { hasStudyPermission, seesSite, type StudyAccess } from '../../shared/study-access.js';
import { audit } from '../audit/audit.service.js';
import { assertWritable } from '../locks/lock-gate.js';
import { reauthenticate } from '../auth/password-attempts.service.js';
import { seesIdentifiers } from '../subjects/subject.service.js';

/** The study permissions of randomization (core STUDY_BUTTONS). */
export const RANDOMIZATION_PERMISSIONS = {
  config: buttonKey('business.randomization.config'),
  subject: buttonKey('business.randomization.subject'),
  unblinded: buttonKey('business.randomization.unblinded'),
  emergency: buttonKey('business.randomization.emergency'),
  unblindAll: buttonKey('business.randomization.unblindAll'),
} as const;

/** Generated lists are kept in the database: strata × list length is bounded so one save stays one transaction. */
export const MAX_LIST_SLOTS = 200_000;
const INSERT_BATCH = 1000;
/** Kit codes: no 0/O, 1/I/L, so a code read aloud on the phone is not misheard. */
const KIT_ALPHABET = '23456789ABCDEFGHJKMNPQRSTUVWXYZ';
const KIT_LENGTH = 10;

type RandomizationRow = typeof randomizations.$inferSelect;
type StateRow = typeof randomizationStudies.$inferSelect;

export const formatRandomizationNo = (n: number) => `R${String(n).padStart(4, '0')}`;

function newKitCode(): string {
  const bytes = crypto.randomBytes(KIT_LENGTH * 2);
  let out = '';
  // Rejection sampling keeps every character equally likely (256 is not a multiple of 31).
  for (const b of bytes) {
    if (b < 248) out += KIT_ALPHABET[b % KIT_ALPHABET.length];
    if (out.length === KIT_LENGTH) return out;
  }
  return out + newKitCode().slice(out.length);
}

function kitCodes(n: number): string[] {
  const seen = new Set<string>();
  while (seen.size < n) seen.add(newKitCode());
  return [...seen];
}

/** Arms are shown when the study is open-label, unblinded as a whole, or the caller holds the unblinded key. */
function seesArms(access: StudyAccess, config: RandomizationConfig | null, state: StateRow | null | undefined) {
  if (!config) return false;
  return (
    !config.blinded || Boolean(state?.unblindedAllAt) || hasStudyPermission(access, RANDOMIZATION_PERMISSIONS.unblinded)
  );
}

async function stateOf(db: Db, studyId: number) {
  const [state] = await db.select().from(randomizationStudies).where(eq(randomizationStudies.studyId, studyId));
  return state ?? null;
}

async function configById(db: Db, studyId: number, configId: number | null | undefined) {
  if (!configId) return null;
  const [row] = await db
    .select()
    .from(randomizationConfigs)
    .where(and(eq(randomizationConfigs.studyId, studyId), eq(randomizationConfigs.id, configId)));
  return row ?? null;
}

async function current(db: Db, studyId: number) {
  const state = await stateOf(db, studyId);
  const row = await configById(db, studyId, state?.currentConfigId);
  return { state, row, config: row ? (row.config as RandomizationConfig) : null };
}

async function requireCurrent(db: Db, studyId: number) {
  const c = await current(db, studyId);
  if (!c.row || !c.config || !c.state) throw AppError.badRequest('randomization.not_configured', '尚未配置随机化');
  return { state: c.state, row: c.row, config: c.config };
}

const armLabel = (config: RandomizationConfig, code: string) => config.arms.find((a) => a.code === code)?.label ?? code;

function stratumLabels(config: RandomizationConfig, configs: Map<number, RandomizationConfig>) {
  const labels = new Map<string, string>();
  for (const c of [...configs.values(), config]) {
    try {
      for (const s of allStrata(c)) labels.set(s.key, s.label);
    } catch {
      // An old version whose strata no longer parse keeps its key as its label.
    }
  }
  return (key: string) => labels.get(key) ?? (key === '' ? '全部' : key);
}

// ---------------------------------------------------------------------------------------------------------------
// Configuration

export interface SaveConfigInput {
  studyId: number;
  config: unknown;
  /** An uploaded allocation table (CSV), used in order instead of a generated list. */
  listCsv?: string | null;
  /** Required once a patient has been randomized: the configuration is locked then. */
  reason?: string | null;
}

/** Forms and items the configuration names must be this study's. */
async function checkReferences(db: Db, studyId: number, config: RandomizationConfig) {
  const crfIds = new Set<number>([
    ...config.eligibility.crfIds,
    ...config.eligibility.items.map((i) => i.crfId),
    ...config.factors.flatMap((f) => (f.source === 'item' && f.crfId ? [f.crfId] : [])),
  ]);
  if (crfIds.size === 0) return;
  const found = await db
    .select({ id: crfs.id })
    .from(crfs)
    .where(and(eq(crfs.studyId, studyId), inArray(crfs.id, [...crfIds])));
  if (found.length !== crfIds.size) {
    throw AppError.badRequest('randomization.crf_missing', '随机化配置引用的表单不存在');
  }
}

/** The lists of a new version: generated from the seed per stratum (block methods), uploaded, or none. */
function listsOf(config: RandomizationConfig, seed: string, listCsv: string | null | undefined) {
  if (listCsv) {
    if (config.method === 'minimization') {
      throw AppError.badRequest('randomization.list_not_used', '最小化随机不使用随机分配表');
    }
    const parsed = parseUploadedList(listCsv, config);
    if (!parsed.ok) {
      throw AppError.badRequest('randomization.list_invalid', parsed.errors[0]!, { errors: parsed.errors });
    }
    const total = Object.values(parsed.lists).reduce((n, l) => n + l.length, 0);
    if (total > MAX_LIST_SLOTS) {
      throw AppError.badRequest('randomization.list_too_large', `随机分配表过大，不能超过 ${MAX_LIST_SLOTS} 行`);
    }
    return { source: 'uploaded' as const, lists: parsed.lists };
  }
  if (!isBlockMethod(config.method)) {
    return { source: 'none' as const, lists: { '': [] } as Record<string, AllocationSlot[]> };
  }
  const strata = allStrata(config);
  if (strata.length * config.listLength > MAX_LIST_SLOTS) {
    throw AppError.badRequest(
      'randomization.list_too_large',
      `随机分配表过大：分层数（${strata.length}）× 每层长度（${config.listLength}）不能超过 ${MAX_LIST_SLOTS}`,
    );
  }
  const lists: Record<string, AllocationSlot[]> = {};
  for (const s of strata) lists[s.key] = generateBlockList(config, seed, s.key);
  return { source: 'generated' as const, lists };
}

export async function saveConfig(ctx: AppContext, user: CurrentUser, input: SaveConfigInput) {
  const parsed = parseRandomizationConfig(input.config);
  if (!parsed.ok) {
    throw AppError.badRequest('randomization.config_invalid', parsed.errors[0]!, { errors: parsed.errors });
  }
  const config = parsed.config;
  const { studyId } = input;
  await checkReferences(ctx.db, studyId, config);
  const seed = newSeed();
  const { source, lists } = listsOf(config, seed, input.listCsv);
  const reason = input.reason?.trim() || null;
  const at = ctx.clock();

  return ctx.db.transaction(async (tx) => {
    await tx.insert(randomizationStudies).values({ studyId }).onConflictDoNothing();
    const [state] = await tx
      .select()
      .from(randomizationStudies)
      .where(eq(randomizationStudies.studyId, studyId))
      .for('update');
    if (state!.unblindedAllAt) throw AppError.conflict('randomization.unblinded_all', '已全部揭盲，不能修改随机化配置');
    const [{ n }] = (await tx
      .select({ n: count() })
      .from(randomizations)
      .where(eq(randomizations.studyId, studyId))) as [{ n: number }];
    const locked = Number(n) > 0;
    if (locked && !reason) {
      throw AppError.conflict('randomization.locked', '已有患者随机入组，随机化配置已锁定；保存新版本须填写修改原因');
    }
    const [{ last }] = (await tx
      .select({ last: sql<number>`coalesce(max(${randomizationConfigs.version}), 0)`.mapWith(Number) })
      .from(randomizationConfigs)
      .where(eq(randomizationConfigs.studyId, studyId))) as [{ last: number }];
    const version = last + 1;
    const [row] = await tx
      .insert(randomizationConfigs)
      .values({
        studyId,
        version,
        method: config.method,
        config,
        seed,
        listSource: source,
        reason,
        createdBy: user.userId,
        createdAt: at,
      })
      .returning();
    const configId = row!.id;
    const strata = Object.entries(lists);
    await tx
      .insert(randomizationStrata)
      .values(strata.map(([stratum, list]) => ({ studyId, configId, stratum, size: list.length })));
    const slots = strata.flatMap(([stratum, list]) => list.map((s) => ({ stratum, ...s })));
    const codes = kitCodes(slots.length);
    for (let i = 0; i < slots.length; i += INSERT_BATCH) {
      await tx.insert(randomizationSlots).values(
        slots.slice(i, i + INSERT_BATCH).map((s, k) => ({
          studyId,
          configId,
          stratum: s.stratum,
          slot: s.slot,
          block: s.block,
          blockSize: s.blockSize,
          arm: s.arm,
          kitCode: codes[i + k]!,
        })),
      );
    }
    await tx
      .update(randomizationStudies)
      .set({ currentConfigId: configId, updatedAt: at })
      .where(eq(randomizationStudies.studyId, studyId));
    // The seed itself stays out of the trail while the study is blinded (it regenerates the list); its
    // SHA-256 is a commitment an auditor checks against the seed disclosed at unblinding.
    await audit(tx, user, at, [
      {
        studyId,
        action: 'randomization.config',
        itemName: `v${version}`,
        newValue: {
          version,
          method: config.method,
          blinded: config.blinded,
          arms: config.arms,
          listSource: source,
          strata: strata.length,
          slots: slots.length,
          seedSha256: sha256Hex(seed),
          locked,
        },
        reason,
      },
    ]);
    return { configId, version, method: config.method, listSource: source, strata: strata.length, slots: slots.length };
  });
}

/** The configuration in force and its versions. Block sizes and list length are shown only to configurers and unblinded roles. */
export async function getConfig(ctx: AppContext, access: StudyAccess) {
  const { state, row, config } = await current(ctx.db, access.studyId);
  const versions = await ctx.db
    .select({
      version: randomizationConfigs.version,
      method: randomizationConfigs.method,
      listSource: randomizationConfigs.listSource,
      reason: randomizationConfigs.reason,
      createTime: randomizationConfigs.createdAt,
      createBy: users.name,
    })
    .from(randomizationConfigs)
    .leftJoin(users, eq(users.userId, randomizationConfigs.createdBy))
    .where(eq(randomizationConfigs.studyId, access.studyId))
    .orderBy(desc(randomizationConfigs.version));
  const [{ n }] = (await ctx.db
    .select({ n: count() })
    .from(randomizations)
    .where(eq(randomizations.studyId, access.studyId))) as [{ n: number }];
  const full =
    hasStudyPermission(access, RANDOMIZATION_PERMISSIONS.config) ||
    hasStudyPermission(access, RANDOMIZATION_PERMISSIONS.unblinded);
  let shown: unknown = null;
  if (config) {
    // Concealment (ICH E9): a site that knows the block size can guess the last assignments of a block.
    const { blockSizes: _b, listLength: _l, ...rest } = config;
    shown = full ? config : rest;
  }
  const unblindedBy = state?.unblindedAllBy
    ? (await ctx.db.select({ name: users.name }).from(users).where(eq(users.userId, state.unblindedAllBy)))[0]?.name
    : undefined;
  return {
    configured: Boolean(row),
    version: row?.version ?? null,
    method: row?.method ?? null,
    listSource: row?.listSource ?? null,
    config: shown,
    locked: Number(n) > 0,
    randomizedCount: Number(n),
    armsVisible: seesArms(access, config, state),
    unblindedAll: state?.unblindedAllAt ? { unblindTime: state.unblindedAllAt, unblindBy: unblindedBy ?? '' } : null,
    versions,
  };
}

/** The study's departments (sites) to stratify by: those of its staff and of its patients. */
export async function factorDepts(ctx: AppContext, studyId: number) {
  const staff = ctx.db
    .selectDistinct({ deptId: studyPersonnel.deptId })
    .from(studyPersonnel)
    .where(and(eq(studyPersonnel.studyId, studyId), isNotNull(studyPersonnel.deptId)));
  const patients = ctx.db
    .selectDistinct({ deptId: subjects.deptId })
    .from(subjects)
    .where(and(eq(subjects.studyId, studyId), isNotNull(subjects.deptId)));
  const ids = [...new Set([...(await staff), ...(await patients)].map((r) => r.deptId!))];
  if (ids.length === 0) return [];
  return ctx.db
    .select({ deptId: departments.deptId, deptName: departments.deptName })
    .from(departments)
    .where(inArray(departments.deptId, ids))
    .orderBy(asc(departments.orderNum), asc(departments.deptId));
}

export interface ListFilter {
  stratum?: string | undefined;
  version?: number | undefined;
}

/**
 * The allocation list (unblinded roles only: the route's permission), with its use, paged. The list is the study's
 * (every slot and whether it is used, whatever the site: it is what the seed is checked against), but a used slot
 * names its patient only to a caller who sees that patient's site (分中心).
 */
export async function listSlots(
  ctx: AppContext,
  access: Pick<StudyAccess, 'studyId' | 'siteIds'>,
  filter: ListFilter,
  page: PageRequest,
) {
  const { studyId } = access;
  const { state } = await current(ctx.db, studyId);
  const row = filter.version
    ? (
        await ctx.db
          .select()
          .from(randomizationConfigs)
          .where(and(eq(randomizationConfigs.studyId, studyId), eq(randomizationConfigs.version, filter.version)))
      )[0]
    : await configById(ctx.db, studyId, state?.currentConfigId);
  if (!row) return { version: null, seed: null, listSource: null, list: [], total: 0 };
  const config = row.config as RandomizationConfig;
  const where = and(
    eq(randomizationSlots.studyId, studyId),
    eq(randomizationSlots.configId, row.id),
    filter.stratum !== undefined ? eq(randomizationSlots.stratum, filter.stratum) : undefined,
  );
  const [{ total }] = (await ctx.db.select({ total: count() }).from(randomizationSlots).where(where)) as [
    { total: number },
  ];
  const rows = await ctx.db
    .select({
      slot: randomizationSlots,
      no: randomizations.randomizationNo,
      subjectId: randomizations.subjectId,
      siteId: subjects.deptId,
    })
    .from(randomizationSlots)
    .leftJoin(
      randomizations,
      and(
        eq(randomizations.studyId, randomizationSlots.studyId),
        eq(randomizations.configId, randomizationSlots.configId),
        eq(randomizations.stratum, randomizationSlots.stratum),
        eq(randomizations.slot, randomizationSlots.slot),
      ),
    )
    .leftJoin(subjects, eq(subjects.id, randomizations.subjectId))
    .where(where)
    .orderBy(asc(randomizationSlots.stratum), asc(randomizationSlots.slot))
    .limit(page.limit)
    .offset(page.offset);
  const label = stratumLabels(config, new Map());
  return {
    version: row.version,
    // The seed regenerates the list, which this caller may read anyway; an auditor verifies with it.
    seed: row.listSource === 'generated' ? row.seed : null,
    listSource: row.listSource,
    list: rows.map(({ slot, no, subjectId, siteId }) => ({
      stratum: slot.stratum,
      stratumLabel: label(slot.stratum),
      slot: slot.slot,
      block: slot.block,
      blockSize: slot.blockSize,
      arm: slot.arm,
      armLabel: armLabel(config, slot.arm),
      kitCode: slot.kitCode,
      used: no !== null,
      randomizationNo: no === null ? null : formatRandomizationNo(no),
      subjectId: subjectId !== null && seesSite(access, siteId) ? subjectId : null,
    })),
    total: Number(total),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Randomizing

type RecordValues = { crfId: number; state: number; values: Record<string, unknown> };

/** The value of an item for eligibility and factors: the newest live record of the form. */
function itemValue(records: RecordValues[], crfId: number, itemName: string): unknown {
  const record = records.find((r) => r.crfId === crfId);
  return record?.values[itemName];
}

function valueTexts(value: unknown): string[] {
  if (value === null || value === undefined) return [];
  if (Array.isArray(value)) return value.map(String);
  if (typeof value === 'object') {
    const v = (value as { value?: unknown }).value;
    return v === undefined ? [] : valueTexts(v);
  }
  return [String(value)];
}

async function crfTitles(db: Db, ids: number[]) {
  if (ids.length === 0) return new Map<number, string>();
  const rows = await db.select({ id: crfs.id, title: crfs.title }).from(crfs).where(inArray(crfs.id, ids));
  return new Map(rows.map((r) => [r.id, r.title]));
}

/** Eligibility, then each factor's level from the patient's department or form values. */
async function patientFactors(
  db: Db,
  config: RandomizationConfig,
  subject: { subjectRecordId: number; deptId: number | null },
) {
  const records = (await db
    .select({ crfId: crfDataRecords.crfId, state: crfDataRecords.state, values: crfDataRecords.values })
    .from(crfDataRecords)
    .where(and(eq(crfDataRecords.subjectRecordId, subject.subjectRecordId), isNull(crfDataRecords.deletedAt)))
    .orderBy(desc(crfDataRecords.updatedAt), desc(crfDataRecords.id))) as RecordValues[];
  const titles = await crfTitles(db, [...config.eligibility.crfIds, ...config.eligibility.items.map((i) => i.crfId)]);
  const missing = config.eligibility.crfIds.filter((crfId) => !records.some((r) => r.crfId === crfId && r.state === 2));
  if (missing.length > 0) {
    throw AppError.badRequest(
      'randomization.ineligible',
      `未满足随机条件：表单“${missing.map((id) => titles.get(id) ?? id).join('、')}”未提交`,
    );
  }
  for (const rule of config.eligibility.items) {
    const have = valueTexts(itemValue(records, rule.crfId, rule.itemName));
    if (!have.some((v) => rule.values.includes(v))) {
      throw AppError.badRequest(
        'randomization.ineligible',
        `未满足随机条件：表单“${titles.get(rule.crfId) ?? rule.crfId}”中“${rule.itemName}”的取值不符合要求`,
      );
    }
  }
  const levels: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  for (const factor of config.factors) {
    const raw =
      factor.source === 'dept' ? subject.deptId : itemValue(records, factor.crfId ?? 0, factor.itemName ?? '');
    const text = valueTexts(raw)[0] ?? null;
    const level = resolveFactorLevel(factor, text);
    if (level === null) {
      throw AppError.badRequest(
        'randomization.factor_missing',
        `无法确定因素“${factor.label}”的水平，请先填写相关数据`,
      );
    }
    levels[factor.key] = level;
    values[factor.key] = text;
  }
  return { levels, values };
}

async function minimizationCounts(db: Db, studyId: number, config: RandomizationConfig) {
  const rows = await db
    .select({ arm: randomizations.arm, levels: randomizations.factorLevels })
    .from(randomizations)
    .where(eq(randomizations.studyId, studyId));
  const counts: MinimizationCounts = {};
  for (const f of config.factors) {
    counts[f.key] = Object.fromEntries(
      f.levels.map((l) => [l.code, Object.fromEntries(config.arms.map((a) => [a.code, 0]))]),
    );
  }
  for (const r of rows) {
    for (const f of config.factors) {
      const cell = counts[f.key]?.[r.levels[f.key] ?? ''];
      if (cell && r.arm in cell) cell[r.arm]! += 1;
    }
  }
  return counts;
}

const alreadyRandomized = () => AppError.conflict('randomization.already', '该患者已随机入组，随机结果不可更改');

export interface RandomizeInput {
  studyId: number;
  subjectId: number;
}

export async function randomize(ctx: AppContext, user: CurrentUser, access: StudyAccess, input: RandomizeInput) {
  const { studyId, subjectId } = input;
  const [subject] = await ctx.db
    .select({ subjectRecordId: subjectRecords.id, deptId: subjects.deptId })
    .from(subjects)
    .innerJoin(subjectRecords, eq(subjectRecords.subjectId, subjects.id))
    .where(
      and(
        eq(subjects.id, subjectId),
        eq(subjects.studyId, studyId),
        isNull(subjects.deletedAt),
        isNull(subjectRecords.deletedAt),
      ),
    );
  if (!subject) throw AppError.notFound('subject.not_found', '患者不存在');
  const at = ctx.clock();
  let row: RandomizationRow;
  let config: RandomizationConfig;
  let state: StateRow;
  try {
    ({ row, config, state } = await ctx.db.transaction(async (tx) => {
      await assertWritable(tx, { studyId, subjectRecordId: subject.subjectRecordId });
      // The study row's lock orders randomizations, configuration saves and unblinding: the number
      // comes from it, and the configuration read below cannot change until this commits.
      const [locked] = await tx
        .update(randomizationStudies)
        .set({ lastNumber: sql`${randomizationStudies.lastNumber} + 1` })
        .where(eq(randomizationStudies.studyId, studyId))
        .returning();
      if (!locked) throw AppError.badRequest('randomization.not_configured', '尚未配置随机化');
      const configRow = await configById(tx, studyId, locked.currentConfigId);
      if (!configRow) throw AppError.badRequest('randomization.not_configured', '尚未配置随机化');
      const cfg = configRow.config as RandomizationConfig;
      const [existing] = await tx
        .select({ id: randomizations.id })
        .from(randomizations)
        .where(and(eq(randomizations.studyId, studyId), eq(randomizations.subjectId, subjectId)));
      if (existing) throw alreadyRandomized();
      const { levels, values } = await patientFactors(tx, cfg, subject);
      // '' unless stratified blocks: simple, blocks and minimization draw from one sequence.
      const stratum = stratumKey(cfg, levels);
      // The stratum's counter row: its lock gives concurrent randomizations of one stratum 1, 2, 3… in order.
      const [counter] = await tx
        .update(randomizationStrata)
        .set({ used: sql`${randomizationStrata.used} + 1` })
        .where(
          and(
            eq(randomizationStrata.studyId, studyId),
            eq(randomizationStrata.configId, configRow.id),
            eq(randomizationStrata.stratum, stratum),
          ),
        )
        .returning();
      if (!counter) throw AppError.conflict('randomization.no_list', '该分层没有随机分配表，请联系统计师');
      const slot = counter.used;
      let arm: string;
      let kitCode: string;
      let scores: Record<string, number> | null = null;
      let chosenBy: string | null = null;
      if (configRow.listSource === 'none') {
        kitCode = newKitCode();
        if (cfg.method === 'minimization') {
          const counts = await minimizationCounts(tx, studyId, cfg);
          const result = minimizationAssign(
            cfg,
            counts,
            levels,
            createRng(deriveSeed(configRow.seed, `minimization:${slot}`)),
          );
          ({ arm, scores, chosenBy } = result);
        } else {
          arm = simpleAssign(cfg, createRng(deriveSeed(configRow.seed, `simple:${slot}`)));
        }
      } else {
        if (slot > counter.size) {
          throw AppError.conflict('randomization.list_exhausted', '该分层的随机分配表已用完，请联系统计师追加');
        }
        const [listed] = await tx
          .select()
          .from(randomizationSlots)
          .where(
            and(
              eq(randomizationSlots.studyId, studyId),
              eq(randomizationSlots.configId, configRow.id),
              eq(randomizationSlots.stratum, stratum),
              eq(randomizationSlots.slot, slot),
            ),
          );
        arm = listed!.arm;
        kitCode = listed!.kitCode;
      }
      const [inserted] = await tx
        .insert(randomizations)
        .values({
          studyId,
          subjectId,
          subjectRecordId: subject.subjectRecordId,
          configId: configRow.id,
          randomizationNo: locked.lastNumber,
          stratum,
          slot,
          arm,
          kitCode,
          factorLevels: levels,
          scores,
          chosenBy,
          randomizedBy: user.userId,
          randomizedAt: at,
        })
        .returning();
      // Audited like clinical data. While blinded the arm (and the scores, which reveal it) stay out of a
      // trail every member reads: an HMAC under the version's still secret seed is recorded instead (a plain
      // hash over a few arm codes is inverted by trying each), checkable once 全部揭盲 discloses the seed.
      const randomizationNo = formatRandomizationNo(locked.lastNumber);
      const allocationHmac = allocationCommitment(configRow.seed, { randomizationNo, kitCode, arm, scores, chosenBy });
      await audit(tx, user, at, [
        {
          studyId,
          subjectRecordId: subject.subjectRecordId,
          action: 'randomization.assign',
          itemName: randomizationNo,
          newValue: {
            randomizationNo,
            version: configRow.version,
            method: cfg.method,
            stratum,
            slot,
            kitCode,
            factorLevels: levels,
            // Every member reads this trail, whatever forms they may view: a value taken from a form is named by
            // its form and item (its own trail holds the value), only a site is written out.
            factorValues: Object.fromEntries(
              cfg.factors.map((f) => [
                f.key,
                f.source === 'dept' ? values[f.key] : { crfId: f.crfId ?? null, itemName: f.itemName ?? null },
              ]),
            ),
            ...(cfg.blinded ? { allocationHmac } : { arm, scores, chosenBy }),
          },
        },
      ]);
      return { row: inserted!, config: cfg, state: locked };
    }));
  } catch (error) {
    if (isUniqueViolation(error, 'randomizations_subject')) throw alreadyRandomized();
    throw error;
  }
  return present(
    row,
    config,
    seesArms(access, config, state) || row.emergencyUnblindedBy === user.userId,
    stratumLabels(config, new Map()),
  );
}

function isUniqueViolation(error: unknown, constraint: string): boolean {
  for (let e = error as { code?: unknown; constraint?: unknown; cause?: unknown } | undefined, i = 0; e && i < 3; i++) {
    if (e.code === '23505') return e.constraint === undefined || e.constraint === constraint;
    e = e.cause as typeof e;
  }
  return false;
}

function present(
  row: RandomizationRow,
  config: RandomizationConfig,
  armVisible: boolean,
  label: (key: string) => string,
) {
  return {
    randomizationId: row.id,
    subjectId: row.subjectId,
    subjectRecordId: row.subjectRecordId,
    randomizationNo: formatRandomizationNo(row.randomizationNo),
    randomizationTime: row.randomizedAt,
    kitCode: row.kitCode,
    blinded: config.blinded,
    armVisible,
    arm: armVisible ? row.arm : null,
    armLabel: armVisible ? armLabel(config, row.arm) : null,
    stratum: row.stratum,
    stratumLabel: label(row.stratum),
    emergencyUnblinded: row.emergencyUnblindedAt !== null,
  };
}

async function configsOf(db: Db, studyId: number) {
  const rows = await db.select().from(randomizationConfigs).where(eq(randomizationConfigs.studyId, studyId));
  return new Map(rows.map((r) => [r.id, r.config as RandomizationConfig]));
}

/** One patient's randomization, or null before it. */
export async function getSubjectRandomization(
  ctx: AppContext,
  user: CurrentUser,
  access: StudyAccess,
  subjectId: number,
) {
  const [row] = await ctx.db
    .select()
    .from(randomizations)
    .where(and(eq(randomizations.studyId, access.studyId), eq(randomizations.subjectId, subjectId)));
  if (!row) return null;
  const { state, config } = await current(ctx.db, access.studyId);
  const configs = await configsOf(ctx.db, access.studyId);
  const own = configs.get(row.configId)!;
  return present(
    row,
    own,
    seesArms(access, own, state) || (await unblindedBy(ctx.db, access.studyId, subjectId, user.userId)),
    stratumLabels(config ?? own, configs),
  );
}

/** The user who emergency-unblinded a patient knows the arm already: their own views keep showing it. */
async function unblindedBy(db: Db, studyId: number, subjectId: number, userId: number) {
  const [row] = await db
    .select({ id: randomizationUnblindings.id })
    .from(randomizationUnblindings)
    .where(
      and(
        eq(randomizationUnblindings.studyId, studyId),
        eq(randomizationUnblindings.subjectId, subjectId),
        eq(randomizationUnblindings.userId, userId),
      ),
    )
    .limit(1);
  return Boolean(row);
}

export interface SelectedFilter {
  arm?: string | undefined;
  keyword?: string | undefined;
}

function selectedQuery(db: Db) {
  return db
    .select({
      r: randomizations,
      identificationCode: subjects.identificationCode,
      subjectName: subjects.subjectName,
      deptName: departments.deptName,
      randomizedByName: users.name,
    })
    .from(randomizations)
    .innerJoin(subjects, eq(subjects.id, randomizations.subjectId))
    .leftJoin(departments, eq(departments.deptId, subjects.deptId))
    .leftJoin(users, eq(users.userId, randomizations.randomizedBy));
}

/**
 * Randomized patients (随机结果), newest number first, those of the caller's sites only (分中心); arms and names as
 * the caller may see them.
 */
export async function listSelected(
  ctx: AppContext,
  user: CurrentUser,
  access: StudyAccess,
  filter: SelectedFilter,
  page: PageRequest | null,
) {
  const { state, config } = await current(ctx.db, access.studyId);
  const configs = await configsOf(ctx.db, access.studyId);
  const arms = seesArms(access, config, state);
  const keyword = filter.keyword?.replace(/[\\%_]/g, '\\$&');
  const where = and(
    eq(randomizations.studyId, access.studyId),
    inCallerSites(access, subjects.deptId),
    arms && filter.arm ? eq(randomizations.arm, filter.arm) : undefined,
    keyword ? sql`${subjects.identificationCode} ilike ${`%${keyword}%`}` : undefined,
  );
  const [{ total }] = (await ctx.db
    .select({ total: count() })
    .from(randomizations)
    .innerJoin(subjects, eq(subjects.id, randomizations.subjectId))
    .where(where)) as [{ total: number }];
  let query = selectedQuery(ctx.db).where(where).orderBy(desc(randomizations.randomizationNo)).$dynamic();
  if (page) query = query.limit(page.limit).offset(page.offset);
  const rows = await query;
  const mine = new Set(
    (
      await ctx.db
        .select({ subjectId: randomizationUnblindings.subjectId })
        .from(randomizationUnblindings)
        .where(
          and(eq(randomizationUnblindings.studyId, access.studyId), eq(randomizationUnblindings.userId, user.userId)),
        )
    ).map((r) => r.subjectId),
  );
  const clear = seesIdentifiers(access);
  const label = stratumLabels(config ?? configs.values().next().value!, configs);
  return {
    armsVisible: arms,
    list: rows.map((x) => ({
      ...present(x.r, configs.get(x.r.configId)!, arms || mine.has(x.r.subjectId), label),
      identificationCode: x.identificationCode,
      subjectName: clear ? x.subjectName : maskName(x.subjectName),
      deptName: x.deptName ?? '',
      randomizeBy: x.randomizedByName ?? '',
    })),
    total: Number(total),
  };
}

/**
 * Counts per arm, per stratum and per factor level (随机列表); arm counts only for those who may see arms. The
 * counts are of the caller's sites' patients, as the list of results lists them (分中心); a stratum's size is the
 * study's list.
 */
export async function results(ctx: AppContext, access: StudyAccess) {
  const { state, row, config } = await current(ctx.db, access.studyId);
  if (!row || !config) {
    return { configured: false, total: 0, armsVisible: false, arms: null, strata: [], factorLevels: [] };
  }
  const configs = await configsOf(ctx.db, access.studyId);
  const arms = seesArms(access, config, state);
  const all = await ctx.db
    .select({ arm: randomizations.arm, stratum: randomizations.stratum, levels: randomizations.factorLevels })
    .from(randomizations)
    .where(and(eq(randomizations.studyId, access.studyId), subjectInCallerSites(access, randomizations.subjectId)));
  const strataRows = await ctx.db
    .select()
    .from(randomizationStrata)
    .where(and(eq(randomizationStrata.studyId, access.studyId), eq(randomizationStrata.configId, row.id)))
    .orderBy(asc(randomizationStrata.stratum));
  const label = stratumLabels(config, configs);
  const byArm = (rows: typeof all) =>
    arms ? Object.fromEntries(config.arms.map((a) => [a.code, rows.filter((r) => r.arm === a.code).length])) : null;
  const strataKeys = [...new Set([...strataRows.map((s) => s.stratum), ...all.map((r) => r.stratum)])];
  return {
    configured: true,
    version: row.version,
    method: row.method,
    blinded: config.blinded,
    armsVisible: arms,
    total: all.length,
    arms: arms ? config.arms.map((a) => ({ ...a, count: all.filter((r) => r.arm === a.code).length })) : null,
    strata: strataKeys.map((key) => {
      const s = strataRows.find((x) => x.stratum === key);
      const mine = all.filter((r) => r.stratum === key);
      return {
        stratum: key,
        stratumLabel: label(key),
        size: s?.size ?? 0,
        used: mine.length,
        arms: byArm(mine),
      };
    }),
    factorLevels: config.factors.flatMap((f) =>
      f.levels.map((l) => {
        const mine = all.filter((r) => r.levels[f.key] === l.code);
        return {
          factor: f.key,
          factorLabel: f.label,
          level: l.code,
          levelLabel: l.label,
          count: mine.length,
          arms: byArm(mine),
        };
      }),
    ),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Unblinding

/** The password typed again, counted with sign-in's failures (a stolen session cannot guess through it). */
async function checkPassword(ctx: AppContext, user: CurrentUser, password: string) {
  await reauthenticate(ctx, user, password, () =>
    AppError.badRequest('randomization.password_wrong', '密码错误，揭盲未完成'),
  );
}

/** Staff to tell at once of an emergency unblinding: those holding the study-manager power to unblind all. */
async function managersOf(db: Db, studyId: number) {
  const rows = await db
    .select({ userId: studyPersonnel.userId })
    .from(studyPersonnel)
    .innerJoin(studyRoles, eq(studyRoles.id, studyPersonnel.studyRoleId))
    .where(
      and(
        eq(studyPersonnel.studyId, studyId),
        sql`${studyRoles.permissions} @> ${JSON.stringify([RANDOMIZATION_PERMISSIONS.unblindAll])}::jsonb`,
      ),
    );
  return rows.map((r) => r.userId);
}

export interface UnblindInput {
  studyId: number;
  subjectId: number;
  password: string;
  reason: string;
}

export async function emergencyUnblind(ctx: AppContext, user: CurrentUser, input: UnblindInput) {
  await checkPassword(ctx, user, input.password);
  const at = ctx.clock();
  const { studyId, subjectId } = input;
  const result = await ctx.db.transaction(async (tx) => {
    const [state] = await tx
      .select()
      .from(randomizationStudies)
      .where(eq(randomizationStudies.studyId, studyId))
      .for('update');
    const [row] = await tx
      .select()
      .from(randomizations)
      .where(and(eq(randomizations.studyId, studyId), eq(randomizations.subjectId, subjectId)));
    if (!state || !row) throw AppError.notFound('randomization.not_randomized', '该患者尚未随机入组');
    const config = (await configById(tx, studyId, row.configId))!.config as RandomizationConfig;
    if (!config.blinded) throw AppError.badRequest('randomization.open_label', '本研究为非盲法，无需揭盲');
    if (state.unblindedAllAt) throw AppError.conflict('randomization.unblinded_all', '本研究已全部揭盲');
    const [updated] = await tx
      .update(randomizations)
      .set({
        emergencyUnblindedAt: sql`coalesce(${randomizations.emergencyUnblindedAt}, ${at})`,
        emergencyUnblindedBy: sql`coalesce(${randomizations.emergencyUnblindedBy}, ${user.userId})`,
      })
      .where(eq(randomizations.id, row.id))
      .returning();
    const [record] = await tx
      .insert(randomizationUnblindings)
      .values({ studyId, kind: 'emergency', subjectId, reason: input.reason, userId: user.userId, createdAt: at })
      .returning({ id: randomizationUnblindings.id });
    await audit(tx, user, at, [
      {
        studyId,
        subjectRecordId: row.subjectRecordId,
        action: 'randomization.unblind',
        itemName: formatRandomizationNo(row.randomizationNo),
        newValue: { randomizationNo: formatRandomizationNo(row.randomizationNo), kitCode: row.kitCode },
        reason: input.reason,
      },
    ]);
    return { row: updated!, config, unblindingId: record!.id };
  });
  // Told at once, after commit: ids only (realtime pushes never carry clinical values).
  for (const managerId of await managersOf(ctx.db, studyId)) {
    if (managerId === user.userId) continue;
    ctx.realtime.toUser(managerId, 'randomization.unblinded', {
      eventId: result.unblindingId,
      studyId,
      subjectId,
    });
  }
  return {
    ...present(result.row, result.config, true, stratumLabels(result.config, new Map())),
    unblindTime: at,
  };
}

/** Every assignment as its blinded audit row committed to it, in number order. */
async function disclosedAllocations(db: Db, studyId: number) {
  const rows = await db
    .select({
      randomizationNo: randomizations.randomizationNo,
      version: randomizationConfigs.version,
      kitCode: randomizations.kitCode,
      arm: randomizations.arm,
      scores: randomizations.scores,
      chosenBy: randomizations.chosenBy,
    })
    .from(randomizations)
    .innerJoin(randomizationConfigs, eq(randomizationConfigs.id, randomizations.configId))
    .where(eq(randomizations.studyId, studyId))
    .orderBy(asc(randomizations.randomizationNo));
  return rows.map((r) => ({ ...r, randomizationNo: formatRandomizationNo(r.randomizationNo) }));
}

export interface UnblindAllInput {
  studyId: number;
  password: string;
  confirmText: string;
  reason?: string | null | undefined;
}

export async function unblindAll(ctx: AppContext, user: CurrentUser, input: UnblindAllInput) {
  await checkPassword(ctx, user, input.password);
  const [study] = await ctx.db
    .select({ studyName: studies.studyName })
    .from(studies)
    .where(eq(studies.studyId, input.studyId));
  if (!study || input.confirmText.trim() !== study.studyName) {
    throw AppError.badRequest('randomization.confirm_mismatch', '确认文字与项目名称不一致');
  }
  const at = ctx.clock();
  const reason = input.reason?.trim() || '研究结束，全部揭盲';
  return ctx.db.transaction(async (tx) => {
    const [state] = await tx
      .select()
      .from(randomizationStudies)
      .where(eq(randomizationStudies.studyId, input.studyId))
      .for('update');
    if (!state?.currentConfigId) throw AppError.badRequest('randomization.not_configured', '尚未配置随机化');
    if (state.unblindedAllAt) throw AppError.conflict('randomization.unblinded_all', '本研究已全部揭盲');
    await tx
      .update(randomizationStudies)
      .set({ unblindedAllAt: at, unblindedAllBy: user.userId, updatedAt: at })
      .where(eq(randomizationStudies.studyId, input.studyId));
    await tx
      .insert(randomizationUnblindings)
      .values({ studyId: input.studyId, kind: 'all', reason, userId: user.userId, createdAt: at });
    const seeds = await tx
      .select({ version: randomizationConfigs.version, seed: randomizationConfigs.seed })
      .from(randomizationConfigs)
      .where(eq(randomizationConfigs.studyId, input.studyId))
      .orderBy(asc(randomizationConfigs.version));
    const allocations = await disclosedAllocations(tx, input.studyId);
    // Now the seeds and what each blinded row committed to may be disclosed: with them in the trail anyone checks
    // each version's seedSha256 and each assignment's allocationHmac (docs/randomization.md).
    await audit(tx, user, at, [
      { studyId: input.studyId, action: 'randomization.unblind_all', newValue: { seeds, allocations }, reason },
    ]);
    return { unblindTime: at };
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Exports (audited; the workbook is written in routes' caller via randomization-export.ts)

export async function auditExport(
  ctx: AppContext,
  user: CurrentUser,
  studyId: number,
  action: 'randomization.export' | 'randomization.export_results',
  rows: number,
) {
  await ctx.db.transaction(async (tx) => {
    await audit(tx, user, ctx.clock(), [{ studyId, action, newValue: { rows } }]);
  });
}

const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

async function workbook(sheets: Array<{ name: string; header: string[]; rows: unknown[][] }>) {
  const { default: ExcelJS } = await import('exceljs');
  const book = new ExcelJS.Workbook();
  for (const s of sheets) {
    const sheet = book.addWorksheet(s.name);
    sheet.addRow(s.header);
    for (const r of s.rows) sheet.addRow(r);
  }
  return Buffer.from(await book.xlsx.writeBuffer());
}

/**
 * The allocation list of the version in force, every stratum (unblinded roles: the route's permission). It names
 * no patient, so it is whole for a caller of any site.
 */
export async function exportList(ctx: AppContext, user: CurrentUser, access: StudyAccess) {
  const { studyId } = access;
  const { row, config } = await requireCurrent(ctx.db, studyId);
  const { list } = await listSlots(
    ctx,
    access,
    {},
    { pageNum: 1, pageSize: MAX_LIST_SLOTS, limit: MAX_LIST_SLOTS, offset: 0 },
  );
  const data = await workbook([
    {
      name: '随机分配表',
      // The first five columns are what parseUploadedList and verifyAllocationList read (分层 is the stratum key,
      // 分组 the arm code): saved as CSV, the sheet is checked against the seed as docs/randomization.md shows.
      header: ['分层', '序号', '区组', '区组长度', '分组', '分层名称', '分组名称', '药物编号', '随机号', '已使用'],
      rows: list.map((s) => [
        s.stratum,
        s.slot,
        s.block,
        s.blockSize,
        s.arm,
        s.stratumLabel,
        s.armLabel,
        s.kitCode,
        s.randomizationNo ?? '',
        s.used ? '是' : '否',
      ]),
    },
    {
      name: '配置',
      header: ['项目', '值'],
      rows: [
        ['版本', row.version],
        ['方法', config.method],
        ['来源', row.listSource],
        ['种子', row.listSource === 'generated' ? row.seed : ''],
        ['分组', config.arms.map((a) => `${a.code}=${a.label}(${a.ratio})`).join('; ')],
        ['配置JSON', JSON.stringify(config)],
      ],
    },
  ]);
  await auditExport(ctx, user, studyId, 'randomization.export', list.length);
  return { fileName: `随机分配表_v${row.version}.xlsx`, type: XLSX, data };
}

/** Randomized patients with numbers and arms as the caller may see them (随机结果). */
export async function exportSelected(ctx: AppContext, user: CurrentUser, access: StudyAccess) {
  const { list, armsVisible } = await listSelected(ctx, user, access, {}, null);
  const data = await workbook([
    {
      name: '随机结果',
      header: [
        '随机号',
        '编号',
        '患者姓名',
        '中心',
        '分层',
        '药物编号',
        ...(armsVisible ? ['分组'] : []),
        '随机时间',
        '操作人',
        '紧急揭盲',
      ],
      rows: list.map((r) => [
        r.randomizationNo,
        r.identificationCode,
        r.subjectName,
        r.deptName,
        r.stratumLabel,
        r.kitCode,
        ...(armsVisible ? [r.armLabel ?? ''] : []),
        r.randomizationTime,
        r.randomizeBy,
        r.emergencyUnblinded ? '已紧急揭盲' : '',
      ]),
    },
  ]);
  await auditExport(ctx, user, access.studyId, 'randomization.export_results', list.length);
  return { fileName: '随机结果.xlsx', type: XLSX, data };
}

export interface SimulateInput {
  studyId: number;
  config?: unknown;
  patients: number;
  runs: number;
  distributions?: Record<string, Record<string, number>> | undefined;
  /** Take each factor's level shares from the study's own patients (where not given in `distributions`). */
  fromPatients?: boolean | undefined;
}

/**
 * Each factor's level shares among the study's patients whose level can be told (their site, or the newest live
 * record of the factor's form): what a simulation uses when asked to follow the study's own patients. A factor no
 * patient has a level for is left out (the simulation then takes its levels as equally likely).
 */
export async function observedDistributions(db: Db, studyId: number, config: RandomizationConfig) {
  const patients = await db
    .select({ subjectRecordId: subjectRecords.id, deptId: subjects.deptId })
    .from(subjects)
    .innerJoin(subjectRecords, eq(subjectRecords.subjectId, subjects.id))
    .where(and(eq(subjects.studyId, studyId), isNull(subjects.deletedAt), isNull(subjectRecords.deletedAt)));
  const crfIds = [...new Set(config.factors.flatMap((f) => (f.source === 'item' && f.crfId ? [f.crfId] : [])))];
  const records =
    crfIds.length === 0
      ? []
      : ((await db
          .select({
            subjectRecordId: crfDataRecords.subjectRecordId,
            crfId: crfDataRecords.crfId,
            state: crfDataRecords.state,
            values: crfDataRecords.values,
          })
          .from(crfDataRecords)
          .where(
            and(
              eq(crfDataRecords.studyId, studyId),
              inArray(crfDataRecords.crfId, crfIds),
              isNull(crfDataRecords.deletedAt),
            ),
          )
          .orderBy(desc(crfDataRecords.updatedAt), desc(crfDataRecords.id))) as Array<
          RecordValues & { subjectRecordId: number }
        >);
  const bySubject = new Map<number, RecordValues[]>();
  for (const record of records) {
    const list = bySubject.get(record.subjectRecordId) ?? [];
    list.push(record);
    bySubject.set(record.subjectRecordId, list);
  }
  const shares: Record<string, Record<string, number>> = {};
  for (const factor of config.factors) {
    const counts = new Map<string, number>();
    for (const patient of patients) {
      const raw =
        factor.source === 'dept'
          ? patient.deptId
          : itemValue(bySubject.get(patient.subjectRecordId) ?? [], factor.crfId ?? 0, factor.itemName ?? '');
      const level = resolveFactorLevel(factor, valueTexts(raw)[0] ?? null);
      if (level !== null) counts.set(level, (counts.get(level) ?? 0) + 1);
    }
    const total = [...counts.values()].reduce((a, b) => a + b, 0);
    if (total === 0) continue;
    shares[factor.key] = Object.fromEntries(factor.levels.map((l) => [l.code, (counts.get(l.code) ?? 0) / total]));
  }
  return shares;
}

/** Before go-live: the configured (or given) method on simulated patients, with a seed of its own. */
export async function simulate(ctx: AppContext, input: SimulateInput) {
  let config: RandomizationConfig;
  if (input.config !== undefined && input.config !== null) {
    const parsed = parseRandomizationConfig(input.config);
    if (!parsed.ok) {
      throw AppError.badRequest('randomization.config_invalid', parsed.errors[0]!, { errors: parsed.errors });
    }
    config = parsed.config;
    // A factor read from another study's form would simulate (and, with fromPatients, count) outside the study.
    await checkReferences(ctx.db, input.studyId, config);
  } else {
    config = (await requireCurrent(ctx.db, input.studyId)).config;
  }
  if (input.patients * input.runs > MAX_SIMULATED_ASSIGNMENTS) {
    throw AppError.badRequest(
      'randomization.simulation_too_large',
      `模拟规模过大：患者数 × 次数不能超过 ${MAX_SIMULATED_ASSIGNMENTS}`,
    );
  }
  const distributions = input.fromPatients
    ? { ...(await observedDistributions(ctx.db, input.studyId, config)), ...input.distributions }
    : input.distributions;
  const steps = simulationSteps(config, {
    patients: input.patients,
    runs: input.runs,
    ...(distributions ? { distributions } : {}),
    seed: newSeed(),
  });
  // A large simulation takes seconds: it runs in slices so that other requests are answered between them.
  let sliceStart = performance.now();
  let step = steps.next();
  while (!step.done) {
    if (performance.now() - sliceStart > SIMULATION_SLICE_MS) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      sliceStart = performance.now();
    }
    step = steps.next();
  }
  return step.value;
}

const SIMULATION_SLICE_MS = 15;

/** A simulation runs in the request: bounded so it answers within seconds on two cores. */
export const MAX_SIMULATED_ASSIGNMENTS = 500_000;
