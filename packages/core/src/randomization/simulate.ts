import { isBlockMethod, ratioSum, type RandomizationConfig } from './config.js';
import { blockStream, simpleAssign } from './allocation.js';
import { chooseMinimizing, minimizationScores } from './minimization.js';
import { createRng, deriveSeed } from './rng.js';
import { stratumKey } from './strata.js';
import type { SimulationOptions, SimulationResult } from './types.js';

/** Keeps a simulation within one request (a few seconds on one core). */
export const SIMULATION_MAX_WORK = 2_000_000;

/**
 * Runs the configured method `runs` times on `patients` simulated patients, with the same
 * allocation functions the server uses (blockStream, simpleAssign, and the scoring and draw
 * inside minimizationAssign: minimizationScores, chooseMinimizing).
 * Run r uses deriveSeed(seed, 'run:' + r): patients' levels come from
 * deriveSeed(runSeed, 'patients'), block lists from runSeed per stratum, simple and minimization
 * draws from deriveSeed(runSeed, 'allocation'). Same seed, same result.
 *
 * Predictability (block designs): before each assignment a guesser who has seen every earlier
 * assignment in the stratum guesses the arm with the smallest ratio-adjusted count so far (the
 * convergence strategy of Blackwell & Hodges 1957, which for permuted blocks equals the arm most
 * under-represented in the current block); ties count as a fractional correct guess.
 */
export function simulateRandomization(config: RandomizationConfig, options: SimulationOptions): SimulationResult {
  const steps = simulationSteps(config, options);
  let step = steps.next();
  while (!step.done) step = steps.next();
  return step.value;
}

/**
 * The same simulation, one run per step (each step yields the runs done so far), so that a server can
 * run a large simulation in slices and answer other requests between them instead of holding its
 * event loop for seconds.
 */
export function* simulationSteps(
  config: RandomizationConfig,
  options: SimulationOptions,
): Generator<number, SimulationResult, void> {
  const { patients, runs, seed } = options;
  if (!Number.isInteger(patients) || patients < 1 || !Number.isInteger(runs) || runs < 1) {
    throw new RangeError('模拟患者数和模拟次数必须是正整数');
  }
  if (patients * runs > SIMULATION_MAX_WORK) {
    throw new RangeError(`模拟规模过大：患者数 × 模拟次数不能超过 ${SIMULATION_MAX_WORK}`);
  }
  const arms = config.arms;
  const k = arms.length;
  const armIndex = new Map(arms.map((a, i) => [a.code, i]));
  const ratios = arms.map((a) => a.ratio);
  const sum = ratioSum(config);
  const factors = config.factors;
  const block = isBlockMethod(config.method);

  // Cumulative level distributions per factor (uniform where not given).
  const cdfs = factors.map((f) => {
    const d = options.distributions?.[f.key];
    const w = f.levels.map((l) => Math.max(0, d?.[l.code] ?? (d ? 0 : 1)));
    const total = w.reduce((s, v) => s + v, 0);
    if (total <= 0) throw new RangeError(`因素“${f.label}”的分布概率之和必须大于 0`);
    let acc = 0;
    return w.map((v) => (acc += v / total));
  });

  const adj = (n: readonly number[]): number => {
    let lo = Infinity;
    let hi = -Infinity;
    for (let b = 0; b < k; b++) {
      const v = n[b]! / ratios[b]!;
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
    return hi - lo;
  };

  const armRuns = arms.map(() => ({ sum: 0, min: Infinity, max: -Infinity }));
  const overall: number[] = [];
  const strata = new Map<string, { patients: number; imbSum: number; imbMax: number }>();
  const levelStats = new Map<string, { factor: string; level: string; imbSum: number; imbMax: number }>();
  for (const f of factors) {
    for (const l of f.levels) {
      levelStats.set(`${f.key}\u0000${l.code}`, { factor: f.key, level: l.code, imbSum: 0, imbMax: 0 });
    }
  }
  let guessed = 0;
  const weights = factors.map((f) => f.weight);
  const variance = config.minimization?.imbalance === 'variance';
  const p = config.minimization?.p ?? 0.8;
  const adjBuf = new Array<number>(factors.length * k).fill(0);
  const scoreBuf: number[] = [];
  const levelIdx = new Array<number>(factors.length).fill(0);

  // Level indices are mixed-radix digits of a cell number: the stratum (or, for minimization,
  // the joint cell) of a patient without building strings on the hot path.
  const nLevels = factors.map((f) => f.levels.length);
  const levelOffset: number[] = [];
  factors.reduce((off, f, fi) => ((levelOffset[fi] = off), off + f.levels.length), 0);
  const totalLevels = nLevels.reduce((a, b) => a + b, 0);
  const cellKeys = new Map<number, string>();
  const cellKey = (cell: number): string => {
    const cached = cellKeys.get(cell);
    if (cached !== undefined) return cached;
    const levels: Record<string, string> = {};
    let c = cell;
    for (let fi = factors.length - 1; fi >= 0; fi--) {
      levels[factors[fi]!.key] = factors[fi]!.levels[c % nLevels[fi]!]!.code;
      c = Math.floor(c / nLevels[fi]!);
    }
    const key =
      config.method === 'stratified_block'
        ? stratumKey(config, levels)
        : factors.map((f) => `${f.key}=${levels[f.key]}`).join('|');
    cellKeys.set(cell, key);
    return key;
  };

  for (let r = 0; r < runs; r++) {
    const runSeed = deriveSeed(seed, `run:${r}`);
    const patientRng = createRng(deriveSeed(runSeed, 'patients'));
    const allocRng = createRng(deriveSeed(runSeed, 'allocation'));
    const totals = new Array<number>(k).fill(0);
    const byCell = new Map<number, { n: number[]; next: () => string[]; queue: string[]; pos: number }>();
    const byLevel = new Int32Array(totalLevels * k);

    for (let i = 0; i < patients; i++) {
      let cell = 0;
      for (let fi = 0; fi < factors.length; fi++) {
        const u = patientRng.nextFloat();
        const cdf = cdfs[fi]!;
        let li = 0;
        while (li < cdf.length - 1 && u >= cdf[li]!) li++;
        cell = cell * nLevels[fi]! + li;
        levelIdx[fi] = li;
      }
      let st = byCell.get(cell);
      if (!st) {
        st = {
          n: new Array<number>(k).fill(0),
          next: block ? blockStream(config, runSeed, cellKey(cell)) : () => [],
          queue: [],
          pos: 0,
        };
        byCell.set(cell, st);
      }

      let arm: string;
      if (block) {
        // Convergence guess before the assignment is revealed.
        let best = Infinity;
        let ties = 0;
        for (let b = 0; b < k; b++) {
          const v = st.n[b]! / ratios[b]!;
          if (v < best - 1e-12) {
            best = v;
            ties = 1;
          } else if (Math.abs(v - best) <= 1e-12) ties++;
        }
        if (st.pos >= st.queue.length) {
          st.queue = st.next();
          st.pos = 0;
        }
        arm = st.queue[st.pos++]!;
        const ai = armIndex.get(arm)!;
        if (Math.abs(st.n[ai]! / ratios[ai]! - best) <= 1e-12) guessed += 1 / ties;
      } else if (config.method === 'minimization') {
        // What minimizationAssign does, on index arrays instead of the counts record.
        for (let fi = 0; fi < factors.length; fi++) {
          const base = (levelOffset[fi]! + levelIdx[fi]!) * k;
          for (let b = 0; b < k; b++) adjBuf[fi * k + b] = byLevel[base + b]! / ratios[b]!;
        }
        minimizationScores(adjBuf, weights, ratios, variance, scoreBuf);
        arm = arms[chooseMinimizing(scoreBuf, p, allocRng).index]!.code;
      } else {
        arm = simpleAssign(config, allocRng);
      }
      const ai = armIndex.get(arm)!;
      totals[ai]!++;
      st.n[ai]!++;
      for (let fi = 0; fi < factors.length; fi++) byLevel[(levelOffset[fi]! + levelIdx[fi]!) * k + ai]!++;
    }

    totals.forEach((t, b) => {
      const a = armRuns[b]!;
      a.sum += t;
      a.min = Math.min(a.min, t);
      a.max = Math.max(a.max, t);
    });
    overall.push(adj(totals));
    for (const [cell, st] of byCell) {
      const key = cellKey(cell);
      const s = strata.get(key) ?? { patients: 0, imbSum: 0, imbMax: 0 };
      const imb = adj(st.n);
      s.patients += st.n.reduce((x, y) => x + y, 0);
      s.imbSum += imb;
      s.imbMax = Math.max(s.imbMax, imb);
      strata.set(key, s);
    }
    factors.forEach((f, fi) => {
      f.levels.forEach((l, li) => {
        const s = levelStats.get(`${f.key}\u0000${l.code}`)!;
        const base = (levelOffset[fi]! + li) * k;
        const imb = adj(Array.from(byLevel.subarray(base, base + k)));
        s.imbSum += imb;
        s.imbMax = Math.max(s.imbMax, imb);
      });
    });
    yield r + 1;
  }

  const sorted = [...overall].sort((a, b) => a - b);
  const hist = new Map<number, number>();
  for (const v of overall) hist.set(Math.round(v), (hist.get(Math.round(v)) ?? 0) + 1);
  const maxBin = Math.max(...hist.keys());
  const round = (v: number): number => Math.round(v * 1000) / 1000;

  return {
    patients,
    runs,
    seed,
    method: config.method,
    arms: arms.map((a, b) => ({
      code: a.code,
      label: a.label,
      ratio: a.ratio,
      expected: round((patients * a.ratio) / sum),
      mean: round(armRuns[b]!.sum / runs),
      min: armRuns[b]!.min,
      max: armRuns[b]!.max,
    })),
    overall: {
      mean: round(overall.reduce((s, v) => s + v, 0) / runs),
      p95: round(sorted[Math.min(runs - 1, Math.ceil(0.95 * runs) - 1)]!),
      max: round(sorted[runs - 1]!),
      histogram: Array.from({ length: maxBin + 1 }, (_, i) => ({ imbalance: i, runs: hist.get(i) ?? 0 })),
    },
    strata: [...strata.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([stratum, s]) => ({
        stratum,
        patientsMean: round(s.patients / runs),
        imbalanceMean: round(s.imbSum / runs),
        imbalanceMax: round(s.imbMax),
      })),
    factorLevels: [...levelStats.values()].map((s) => ({
      factor: s.factor,
      level: s.level,
      imbalanceMean: round(s.imbSum / runs),
      imbalanceMax: round(s.imbMax),
    })),
    predictability: block ? round(guessed / (patients * runs)) : null,
    predictabilityBaseline: round(Math.max(...ratios) / sum),
  };
}
