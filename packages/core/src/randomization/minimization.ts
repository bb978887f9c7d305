import type { RandomizationConfig } from './config.js';
import type { MinimizationCounts, MinimizationResult, Rng } from './types.js';

/** Scores closer than this are equal: ratio-adjusted counts are fractions and sums carry rounding. */
const EPS = 1e-9;

/**
 * Pocock–Simon minimization (Pocock & Simon, Biometrics 1975).
 *
 * For a new patient with level l_f on each factor f and each candidate arm a:
 *   x_{f,b}(a) = (n_{f,l_f,b} + [b = a]) / r_b        ratio-adjusted count of arm b at that level
 *   D_f(a)     = max_b x − min_b x                    (range), or
 *              = (1/K) Σ_b (x_{f,b} − mean_b x)²       (variance, population form, K arms)
 *   G(a)       = Σ_f w_f · D_f(a)
 * The arms with the smallest G share probability p (a tie is broken uniformly among them); the
 * other arms share 1 − p uniformly. When every arm scores the same, the arm is drawn uniformly.
 * Draw order (for reproducibility): one nextFloat() when not all arms tie, then one nextInt().
 */
export function minimizationAssign(
  config: Pick<RandomizationConfig, 'arms' | 'factors' | 'minimization'>,
  counts: MinimizationCounts,
  patientLevels: Record<string, string>,
  rng: Rng,
): MinimizationResult {
  const arms = config.arms;
  const k = arms.length;
  const variance = config.minimization?.imbalance === 'variance';
  const p = config.minimization?.p ?? 0.8;
  const levelCounts = config.factors.map((f) => {
    const level = patientLevels[f.key];
    if (level === undefined || !f.levels.some((l) => l.code === level)) {
      throw new Error(`因素“${f.label}”的水平无效：${level ?? '未填写'}`);
    }
    const byArm = counts[f.key]?.[level];
    return { weight: f.weight, n: arms.map((a) => byArm?.[a.code] ?? 0) };
  });

  const scores: Record<string, number> = {};
  const values: number[] = [];
  const x = new Array<number>(k);
  for (let a = 0; a < k; a++) {
    let g = 0;
    for (const { weight, n } of levelCounts) {
      for (let b = 0; b < k; b++) x[b] = (n[b]! + (b === a ? 1 : 0)) / arms[b]!.ratio;
      g += weight * imbalance(x, variance);
    }
    scores[arms[a]!.code] = g;
    values.push(g);
  }

  const best = Math.min(...values);
  const minima: number[] = [];
  const others: number[] = [];
  values.forEach((v, i) => (v - best <= EPS ? minima : others).push(i));
  if (others.length === 0) {
    return { arm: arms[rng.nextInt(k)]!.code, scores, chosenBy: 'tie' };
  }
  if (rng.nextFloat() < p) {
    const i = minima[rng.nextInt(minima.length)]!;
    return { arm: arms[i]!.code, scores, chosenBy: minima.length > 1 ? 'tie' : 'minimum' };
  }
  const i = others[rng.nextInt(others.length)]!;
  return { arm: arms[i]!.code, scores, chosenBy: 'random' };
}

/** Range (max − min) or population variance of the values. */
export function imbalance(x: readonly number[], variance = false): number {
  if (!variance) {
    let lo = Infinity;
    let hi = -Infinity;
    for (const v of x) {
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
    return hi - lo;
  }
  let mean = 0;
  for (const v of x) mean += v;
  mean /= x.length;
  let s = 0;
  for (const v of x) s += (v - mean) ** 2;
  return s / x.length;
}

/** A new counts object with the patient added to `arm` at each of their levels (input unchanged). */
export function addToCounts(
  counts: MinimizationCounts,
  patientLevels: Record<string, string>,
  arm: string,
): MinimizationCounts {
  const out: MinimizationCounts = { ...counts };
  for (const [factor, level] of Object.entries(patientLevels)) {
    const byLevel = { ...(out[factor] ?? {}) };
    const byArm = { ...(byLevel[level] ?? {}) };
    byArm[arm] = (byArm[arm] ?? 0) + 1;
    byLevel[level] = byArm;
    out[factor] = byLevel;
  }
  return out;
}

/** The counts of already randomized patients, e.g. rebuilt from the stored assignments. */
export function countsFrom(patients: Iterable<{ levels: Record<string, string>; arm: string }>): MinimizationCounts {
  const out: MinimizationCounts = {};
  for (const { levels, arm } of patients) {
    for (const [factor, level] of Object.entries(levels)) {
      const byArm = ((out[factor] ??= {})[level] ??= {});
      byArm[arm] = (byArm[arm] ?? 0) + 1;
    }
  }
  return out;
}
