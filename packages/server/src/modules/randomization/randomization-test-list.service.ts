import { and, eq, isNull, like } from 'drizzle-orm';
import { generateBlockList, newSeed, type RandomizationConfig } from '@ecrf/core';
import type { Db } from '../../db/client.js';
import {
  randomizationConfigs,
  randomizationSlots,
  randomizationStrata,
  randomizationStudies,
} from '../../db/schema/index.js';
import { newKitCode, TEST_KIT_PREFIX, TEST_STRATUM_PREFIX, testStratum } from './randomization-shared.js';

// The test list (测试, docs/lifecycle.md): a test patient is randomized from a list of its own, drawn from the
// configuration version's test seed, in strata keyed apart from production's ('test:<stratum>'), numbered T0001… and
// with kit codes that cannot be production's. Production's counters, slots and minimization counts are never read
// or touched by it; 上线 removes it with the test patients.

const INSERT_BATCH = 1000;

/** A kit code of the test list: 15 characters, never one of production's 10. */
export const testKitCode = () => `${TEST_KIT_PREFIX}${newKitCode()}`;

/**
 * The version's test seed, drawn from the CSPRNG when the version was saved; a version saved before test lists
 * existed gets one now (the caller holds the study's randomization row lock, so only one is drawn).
 */
export async function testSeedOf(tx: Db, configRow: { id: number; testSeed: string | null }): Promise<string> {
  if (configRow.testSeed) return configRow.testSeed;
  const seed = newSeed();
  await tx
    .update(randomizationConfigs)
    .set({ testSeed: seed })
    .where(and(eq(randomizationConfigs.id, configRow.id), isNull(randomizationConfigs.testSeed)));
  const [row] = await tx
    .select({ testSeed: randomizationConfigs.testSeed })
    .from(randomizationConfigs)
    .where(eq(randomizationConfigs.id, configRow.id));
  return row?.testSeed ?? seed;
}

/**
 * The test stratum's counter row, and for a listed method its slots generated from the test seed, made on the
 * stratum's first test randomization (the caller holds the study's randomization row lock).
 */
export async function openTestStratum(
  tx: Db,
  at: { studyId: number; configId: number; cfg: RandomizationConfig; seed: string; key: string; listed: boolean },
) {
  const stratum = testStratum(at.key);
  const [existing] = await tx
    .select({ size: randomizationStrata.size })
    .from(randomizationStrata)
    .where(
      and(
        eq(randomizationStrata.studyId, at.studyId),
        eq(randomizationStrata.configId, at.configId),
        eq(randomizationStrata.stratum, stratum),
      ),
    );
  if (existing) return;
  const list = at.listed ? generateBlockList(at.cfg, at.seed, at.key) : [];
  await tx
    .insert(randomizationStrata)
    .values({ studyId: at.studyId, configId: at.configId, stratum, size: list.length });
  const codes = new Set<string>();
  while (codes.size < list.length) codes.add(testKitCode());
  const kits = [...codes];
  for (let i = 0; i < list.length; i += INSERT_BATCH) {
    await tx.insert(randomizationSlots).values(
      list.slice(i, i + INSERT_BATCH).map((s, k) => ({
        studyId: at.studyId,
        configId: at.configId,
        stratum,
        slot: s.slot,
        block: s.block,
        blockSize: s.blockSize,
        arm: s.arm,
        kitCode: kits[i + k]!,
      })),
    );
  }
}

/**
 * 上线: the test list starts again (its randomizations went with the test patients): its strata and slots go, its
 * numbers restart at T0001. The test seeds stay (a test patient of the live study draws from them again).
 */
export async function resetTestList(tx: Db, studyId: number) {
  const test = `${TEST_STRATUM_PREFIX}%`;
  await tx
    .delete(randomizationSlots)
    .where(and(eq(randomizationSlots.studyId, studyId), like(randomizationSlots.stratum, test)));
  await tx
    .delete(randomizationStrata)
    .where(and(eq(randomizationStrata.studyId, studyId), like(randomizationStrata.stratum, test)));
  await tx.update(randomizationStudies).set({ lastTestNumber: 0 }).where(eq(randomizationStudies.studyId, studyId));
}
