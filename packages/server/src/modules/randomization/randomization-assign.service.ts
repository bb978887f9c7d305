import { and, desc, eq, inArray, isNull, sql } from 'drizzle-orm';
import {
  allocationCommitment,
  createRng,
  deriveSeed,
  isBlockMethod,
  minimizationAssign,
  resolveFactorLevel,
  simpleAssign,
  stratumKey,
  type MinimizationCounts,
  type RandomizationConfig,
} from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import type { Db } from '../../db/client.js';
import {
  crfDataRecords,
  crfs,
  randomizationSlots,
  randomizationStrata,
  randomizationStudies,
  randomizations,
  subjectRecords,
  subjects,
} from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';
import type { CurrentUser } from '../../shared/current-user.js';
import { livePatientOfStudy } from '../../shared/live-patient.js';
import type { StudyAccess } from '../../shared/study-access.js';
import { audit } from '../audit/audit.service.js';
import { assertWritable } from '../locks/lock-gate.js';
import {
  configById,
  formatRandomizationNo,
  itemValue,
  listStratum,
  newKitCode,
  present,
  seesArms,
  stratumLabels,
  testStratum,
  valueTexts,
  type RandomizationRow,
  type RecordValues,
  type StateRow,
} from './randomization-shared.js';
import { openTestStratum, testKitCode, testSeedOf } from './randomization-test-list.service.js';

// ---------------------------------------------------------------------------------------------------------------
// Randomizing

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

/** Arms per factor level so far: of production's randomizations, or of the test list's (never the two together). */
export async function minimizationCounts(db: Db, studyId: number, config: RandomizationConfig, test = false) {
  const rows = await db
    .select({ arm: randomizations.arm, levels: randomizations.factorLevels })
    .from(randomizations)
    .where(and(eq(randomizations.studyId, studyId), eq(randomizations.test, test)));
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

type ConfigRow = NonNullable<Awaited<ReturnType<typeof configById>>>;

/** What a randomization takes from its list: the slot of its stratum, its arm and kit code, and the seed drawn by. */
interface Taken {
  stratum: string;
  slot: number;
  arm: string;
  kitCode: string;
  scores: Record<string, number> | null;
  chosenBy: string | null;
  seed: string;
}

/**
 * The next slot of the patient's stratum, under its counter row's lock: production's list, or for a test patient the
 * test list (its own strata, slots, seed and kit codes: randomization-test-list.service.ts), which never takes a production
 * slot or counts towards production's minimization.
 */
async function takeSlot(
  tx: Db,
  studyId: number,
  configRow: ConfigRow,
  cfg: RandomizationConfig,
  levels: Record<string, string>,
  test: boolean,
): Promise<Taken> {
  // '' unless stratified blocks: simple, blocks and minimization draw from one sequence.
  const key = stratumKey(cfg, levels);
  const stratum = test ? testStratum(key) : key;
  const seed = test ? await testSeedOf(tx, configRow) : configRow.seed;
  // The test list is generated from its seed for block methods (an uploaded list has no test twin); otherwise drawn.
  const listed = configRow.listSource !== 'none' && (!test || isBlockMethod(cfg.method));
  if (test) await openTestStratum(tx, { studyId, configId: configRow.id, cfg, seed, key, listed });
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
  if (!listed) {
    const kitCode = test ? testKitCode() : newKitCode();
    if (cfg.method === 'minimization') {
      const counts = await minimizationCounts(tx, studyId, cfg, test);
      const rng = createRng(deriveSeed(seed, `minimization:${slot}`));
      return { stratum, slot, kitCode, seed, ...minimizationAssign(cfg, counts, levels, rng) };
    }
    const arm = simpleAssign(cfg, createRng(deriveSeed(seed, `simple:${slot}`)));
    return { stratum, slot, arm, kitCode, scores: null, chosenBy: null, seed };
  }
  if (slot > counter.size) {
    throw AppError.conflict('randomization.list_exhausted', '该分层的随机分配表已用完，请联系统计师追加');
  }
  const [listedSlot] = await tx
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
  return { stratum, slot, arm: listedSlot!.arm, kitCode: listedSlot!.kitCode, scores: null, chosenBy: null, seed };
}

const alreadyRandomized = () => AppError.conflict('randomization.already', '该患者已随机入组，随机结果不可更改');

export interface RandomizeInput {
  studyId: number;
  subjectId: number;
}

export async function randomize(ctx: AppContext, user: CurrentUser, access: StudyAccess, input: RandomizeInput) {
  const { studyId, subjectId } = input;
  const [subject] = await ctx.db
    .select({ subjectRecordId: subjectRecords.id, deptId: subjects.deptId, test: subjects.test })
    .from(subjects)
    .innerJoin(subjectRecords, eq(subjectRecords.subjectId, subjects.id))
    .where(livePatientOfStudy(studyId, subjectId));
  if (!subject) throw AppError.notFound('subject.not_found', '患者不存在');
  const at = ctx.clock();
  let row: RandomizationRow;
  let config: RandomizationConfig;
  let state: StateRow;
  try {
    ({ row, config, state } = await ctx.db.transaction(async (tx) => {
      await assertWritable(tx, { studyId, subjectRecordId: subject.subjectRecordId });
      // The study row's lock orders randomizations, configuration saves and unblinding: the number
      // comes from it, and the configuration read below cannot change until this commits. A test patient's
      // number is the test list's own (T0001…).
      const [locked] = await tx
        .update(randomizationStudies)
        .set(
          subject.test
            ? { lastTestNumber: sql`${randomizationStudies.lastTestNumber} + 1` }
            : { lastNumber: sql`${randomizationStudies.lastNumber} + 1` },
        )
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
      const number = subject.test ? -locked.lastTestNumber : locked.lastNumber;
      const taken = await takeSlot(tx, studyId, configRow, cfg, levels, subject.test);
      const { stratum, slot, arm, kitCode, scores, chosenBy, seed } = taken;
      const [inserted] = await tx
        .insert(randomizations)
        .values({
          studyId,
          subjectId,
          subjectRecordId: subject.subjectRecordId,
          configId: configRow.id,
          randomizationNo: number,
          stratum,
          slot,
          arm,
          kitCode,
          test: subject.test,
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
      const randomizationNo = formatRandomizationNo(number);
      const allocationHmac = allocationCommitment(seed, { randomizationNo, kitCode, arm, scores, chosenBy });
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
            stratum: listStratum(stratum),
            ...(subject.test && { test: true }),
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
