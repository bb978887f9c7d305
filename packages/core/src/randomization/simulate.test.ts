import { describe, expect, it } from 'vitest';
import { addToCounts, minimizationAssign } from './minimization.js';
import { createRng, deriveSeed } from './rng.js';
import { simulateRandomization, simulationSteps } from './simulate.js';
import type { MinimizationCounts } from './types.js';
import { AGE, SEX, SITE, armsFor, config } from './test-fixtures.js';

describe('simulation', () => {
  const stratified = config({ method: 'stratified_block', blockSizes: [4, 6], factors: [SITE, SEX] });

  it('is deterministic by seed and changes with it', () => {
    const a = simulateRandomization(stratified, { patients: 60, runs: 30, seed: 'abc' });
    expect(simulateRandomization(stratified, { patients: 60, runs: 30, seed: 'abc' })).toEqual(a);
    expect(simulateRandomization(stratified, { patients: 60, runs: 30, seed: 'abd' })).not.toEqual(a);
  });

  it('run step by step it yields once per run and ends with the same result', () => {
    const steps = simulationSteps(stratified, { patients: 60, runs: 30, seed: 'abc' });
    const yielded: number[] = [];
    let step = steps.next();
    while (!step.done) {
      yielded.push(step.value);
      step = steps.next();
    }
    expect(yielded).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    expect(step.value).toEqual(simulateRandomization(stratified, { patients: 60, runs: 30, seed: 'abc' }));
  });

  it('reports arms, strata, factor levels and predictability of a stratified block design', () => {
    const r = simulateRandomization(stratified, { patients: 120, runs: 50, seed: 's' });
    expect(r.arms.map((a) => a.expected)).toEqual([60, 60]);
    expect(r.arms[0]!.mean + r.arms[1]!.mean).toBeCloseTo(120);
    expect(r.strata).toHaveLength(6);
    // Within a stratum, blocks of at most 6 leave at most 3 apart.
    for (const s of r.strata) expect(s.imbalanceMax).toBeLessThanOrEqual(3);
    expect(r.overall.max).toBeLessThanOrEqual(6 * 3);
    expect(r.overall.histogram.reduce((s, h) => s + h.runs, 0)).toBe(50);
    expect(r.factorLevels).toHaveLength(5);
    // The convergence guesser beats chance against permuted blocks; that is their known cost.
    expect(r.predictabilityBaseline).toBe(0.5);
    expect(r.predictability!).toBeGreaterThan(0.6);
    expect(r.predictability!).toBeLessThan(0.8);
  });

  it('follows the given factor distributions', () => {
    const c = config({
      method: 'minimization',
      blockSizes: [],
      factors: [SEX, AGE],
      minimization: { imbalance: 'range', p: 0.8 },
    });
    const r = simulateRandomization(c, {
      patients: 200,
      runs: 20,
      seed: 'd',
      distributions: { sex: { M: 0.9, F: 0.1 } },
    });
    expect(r.predictability).toBeNull();
    const male = r.strata.filter((s) => s.stratum.includes('sex=M')).reduce((s, x) => s + x.patientsMean, 0);
    expect(male / 200).toBeGreaterThan(0.8);
    expect(male / 200).toBeLessThan(1);
    for (const l of r.factorLevels) expect(l.imbalanceMax).toBeLessThanOrEqual(12);
  });

  it('simple randomization with 2:1 gives about two thirds to A and has no predictability figure', () => {
    const c = config({ method: 'simple', arms: armsFor([2, 1]), blockSizes: [] });
    const r = simulateRandomization(c, { patients: 300, runs: 40, seed: 'x' });
    expect(r.arms[0]!.expected).toBe(200);
    expect(Math.abs(r.arms[0]!.mean - 200)).toBeLessThan(10);
    expect(r.predictability).toBeNull();
    expect(r.predictabilityBaseline).toBeCloseTo(0.667);
  });

  it('refuses more than 2 000 000 patient assignments', () => {
    expect(() => simulateRandomization(stratified, { patients: 1000, runs: 2001, seed: 'x' })).toThrow(
      '模拟规模过大：患者数 × 模拟次数不能超过 2000000',
    );
    expect(() => simulateRandomization(stratified, { patients: 0, runs: 1, seed: 'x' })).toThrow(RangeError);
  });
});

describe('simulation uses the production allocation', () => {
  it('a minimization run gives the same arms as minimizationAssign fed the same patients and seeds', () => {
    const c = config({
      method: 'minimization',
      arms: armsFor([2, 1, 1]),
      blockSizes: [],
      factors: [SEX, SITE],
      minimization: { imbalance: 'variance', p: 0.7 },
    });
    const seed = 'same-code';
    const r = simulateRandomization(c, { patients: 97, runs: 1, seed });
    const runSeed = deriveSeed(seed, 'run:0');
    const patients = createRng(deriveSeed(runSeed, 'patients'));
    const rng = createRng(deriveSeed(runSeed, 'allocation'));
    let counts: MinimizationCounts = {};
    const totals: Record<string, number> = {};
    for (let i = 0; i < 97; i++) {
      // Uniform levels: the simulation draws one nextFloat per factor.
      const levels = {
        sex: SEX.levels[Math.floor(patients.nextFloat() * 2)]!.code,
        site: SITE.levels[Math.floor(patients.nextFloat() * 3)]!.code,
      };
      const { arm } = minimizationAssign(c, counts, levels, rng);
      counts = addToCounts(counts, levels, arm);
      totals[arm] = (totals[arm] ?? 0) + 1;
    }
    expect(Object.fromEntries(r.arms.map((a) => [a.code, a.mean]))).toEqual(totals);
  });
});
