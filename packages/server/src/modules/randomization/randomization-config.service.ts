import { and, asc, count, desc, eq, inArray, isNotNull, isNull, sql } from 'drizzle-orm';
import {
  allStrata,
  generateBlockList,
  isBlockMethod,
  newSeed,
  parseRandomizationConfig,
  parseUploadedList,
  resolveFactorLevel,
  sha256Hex,
  simulationSteps,
  type AllocationSlot,
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
  studyPersonnel,
  subjectRecords,
  subjects,
  users,
} from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';
import type { CurrentUser } from '../../shared/current-user.js';
import { pagedQuery } from '../../shared/paged-query.js';
import type { PageRequest } from '../../shared/paging.js';
import { hasStudyPermission, seesSite, type StudyAccess } from '../../shared/study-access.js';
import { audit } from '../audit/audit.service.js';
import {
  armLabel,
  configById,
  current,
  formatRandomizationNo,
  itemValue,
  MAX_LIST_SLOTS,
  newKitCode,
  RANDOMIZATION_PERMISSIONS,
  requireCurrent,
  seesArms,
  stratumLabels,
  TEST_STRATUM_PREFIX,
  valueTexts,
  type RecordValues,
} from './randomization-shared.js';

const INSERT_BATCH = 1000;

function kitCodes(n: number): string[] {
  const seen = new Set<string>();
  while (seen.size < n) seen.add(newKitCode());
  return [...seen];
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
    // Test randomizations (the test list's) do not lock the configuration: they are purged at 上线.
    const [{ n }] = (await tx
      .select({ n: count() })
      .from(randomizations)
      .where(and(eq(randomizations.studyId, studyId), eq(randomizations.test, false)))) as [{ n: number }];
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
        // The test list's own seed (randomization-test-list.ts): test patients never take production slots.
        testSeed: newSeed(),
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
    // As saveConfig counts them: test randomizations do not lock the configuration.
    .where(and(eq(randomizations.studyId, access.studyId), eq(randomizations.test, false)))) as [{ n: number }];
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
    // The allocation list is production's: the test list's slots (randomization-test-list.ts) are not part of it.
    sql`${randomizationSlots.stratum} not like ${`${TEST_STRATUM_PREFIX}%`}`,
    filter.stratum !== undefined ? eq(randomizationSlots.stratum, filter.stratum) : undefined,
  );
  const { list: rows, total } = await pagedQuery(
    ctx.db.select({ total: count() }).from(randomizationSlots).where(where),
    ctx.db
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
      .$dynamic(),
    page,
  );
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
    total,
  };
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
