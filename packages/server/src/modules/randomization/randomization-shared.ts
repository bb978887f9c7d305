import crypto from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { allStrata, buttonKey, studyModeOf, type RandomizationConfig } from '@ecrf/core';
import type { Db } from '../../db/client.js';
import { randomizationConfigs, randomizationStudies, studies, type randomizations } from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';
import { hasStudyPermission, type StudyAccess } from '../../shared/study-access.js';

// What configuration, assignment, unblinding and the results views all read: the permissions, the version in
// force, who sees arms, and one randomization as a caller is shown it.

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

/** Kit codes: no 0/O, 1/I/L, so a code read aloud on the phone is not misheard. */
const KIT_ALPHABET = '23456789ABCDEFGHJKMNPQRSTUVWXYZ';
const KIT_LENGTH = 10;

export type RandomizationRow = typeof randomizations.$inferSelect;
export type StateRow = typeof randomizationStudies.$inferSelect;

/**
 * R0001 for production; a test randomization's number is kept negative (-1 for T0001), so the two series never meet
 * under the study's unique number and every place that shows a number shows a test one as T0001.
 */
export const formatRandomizationNo = (n: number) =>
  n < 0 ? `T${String(-n).padStart(4, '0')}` : `R${String(n).padStart(4, '0')}`;

/**
 * The test list (测试数据, docs/lifecycle.md): its strata are the production strata's keys behind this prefix (so its
 * counters and slots are rows apart from production's), drawn from the version's own test seed, and its kit codes
 * carry TEST_KIT_PREFIX (15 characters: never one of production's 10).
 */
export const TEST_STRATUM_PREFIX = 'test:';
export const TEST_KIT_PREFIX = 'TEST-';
export const testStratum = (stratum: string) => `${TEST_STRATUM_PREFIX}${stratum}`;
export const isTestStratum = (stratum: string) => stratum.startsWith(TEST_STRATUM_PREFIX);
/** A stratum as the configuration names it (the test list's without its prefix). */
export const listStratum = (stratum: string) =>
  isTestStratum(stratum) ? stratum.slice(TEST_STRATUM_PREFIX.length) : stratum;

/** Is the study in 测试? Its randomization figures are then the test list's (production's once it went live). */
export async function studyInTest(db: Db, studyId: number): Promise<boolean> {
  const [row] = await db.select({ mode: studies.mode }).from(studies).where(eq(studies.studyId, studyId));
  return studyModeOf(row?.mode) === 'test';
}

export function newKitCode(): string {
  const bytes = crypto.randomBytes(KIT_LENGTH * 2);
  let out = '';
  // Rejection sampling keeps every character equally likely (256 is not a multiple of 31).
  for (const b of bytes) {
    if (b < 248) out += KIT_ALPHABET[b % KIT_ALPHABET.length];
    if (out.length === KIT_LENGTH) return out;
  }
  return out + newKitCode().slice(out.length);
}

/** Arms are shown when the study is open-label, unblinded as a whole, or the caller holds the unblinded key. */
export function seesArms(access: StudyAccess, config: RandomizationConfig | null, state: StateRow | null | undefined) {
  if (!config) return false;
  return (
    !config.blinded || Boolean(state?.unblindedAllAt) || hasStudyPermission(access, RANDOMIZATION_PERMISSIONS.unblinded)
  );
}

async function stateOf(db: Db, studyId: number) {
  const [state] = await db.select().from(randomizationStudies).where(eq(randomizationStudies.studyId, studyId));
  return state ?? null;
}

export async function configById(db: Db, studyId: number, configId: number | null | undefined) {
  if (!configId) return null;
  const [row] = await db
    .select()
    .from(randomizationConfigs)
    .where(and(eq(randomizationConfigs.studyId, studyId), eq(randomizationConfigs.id, configId)));
  return row ?? null;
}

export async function current(db: Db, studyId: number) {
  const state = await stateOf(db, studyId);
  const row = await configById(db, studyId, state?.currentConfigId);
  return { state, row, config: row ? (row.config as RandomizationConfig) : null };
}

export async function requireCurrent(db: Db, studyId: number) {
  const c = await current(db, studyId);
  if (!c.row || !c.config || !c.state) throw AppError.badRequest('randomization.not_configured', '尚未配置随机化');
  return { state: c.state, row: c.row, config: c.config };
}

export const armLabel = (config: RandomizationConfig, code: string) =>
  config.arms.find((a) => a.code === code)?.label ?? code;

export function stratumLabels(config: RandomizationConfig, configs: Map<number, RandomizationConfig>) {
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

export type RecordValues = { crfId: number; state: number; values: Record<string, unknown> };

/** The value of an item for eligibility and factors: the newest live record of the form. */
export function itemValue(records: RecordValues[], crfId: number, itemName: string): unknown {
  const record = records.find((r) => r.crfId === crfId);
  return record?.values[itemName];
}

export function valueTexts(value: unknown): string[] {
  if (value === null || value === undefined) return [];
  if (Array.isArray(value)) return value.map(String);
  if (typeof value === 'object') {
    const v = (value as { value?: unknown }).value;
    return v === undefined ? [] : valueTexts(v);
  }
  return [String(value)];
}

export function present(
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
    stratum: listStratum(row.stratum),
    stratumLabel: label(listStratum(row.stratum)),
    emergencyUnblinded: row.emergencyUnblindedAt !== null,
    test: row.test,
  };
}
