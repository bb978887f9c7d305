import type { RandomizationConfig } from './config.js';
import type { MinimizationCounts, MinimizationResult, Rng } from './types.js';

// Reused buffers: the simulation calls this millions of times and fresh arrays per call cost more
// than the arithmetic. Safe because the function is synchronous and never re-entered.
const scratch = {
  adj: [] as number[],
  weights: [] as number[],
  ratios: [] as number[],
  values: [] as number[],
  x: [] as number[],
};

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
  const nf = config.factors.length;
  const adj = scratch.adj;
  const weights = scratch.weights;
  adj.length = nf * k;
  weights.length = nf;
  for (let f = 0; f < nf; f++) {
    const factor = config.factors[f]!;
    const level = patientLevels[factor.key];
    let known = false;
    for (const l of factor.levels) if (l.code === level) known = true;
    if (level === undefined || !known) {
      throw new Error(`因素“${factor.label}”的水平无效：${level ?? '未填写'}`);
    }
    weights[f] = factor.weight;
    const byArm = counts[factor.key]?.[level];
    for (let b = 0; b < k; b++) adj[f * k + b] = (byArm?.[arms[b]!.code] ?? 0) / arms[b]!.ratio;
  }
  const ratios = scratch.ratios;
  ratios.length = k;
  for (let b = 0; b < k; b++) ratios[b] = arms[b]!.ratio;
  const values = scratch.values;
  minimizationScores(adj, weights, ratios, config.minimization?.imbalance === 'variance', values);
  const { index, chosenBy } = chooseMinimizing(values, config.minimization?.p ?? 0.8, rng);
  const scores: Record<string, number> = {};
  for (let b = 0; b < k; b++) scores[arms[b]!.code] = values[b]!;
  return { arm: arms[index]!.code, scores, chosenBy };
}

/**
 * The scores G(a) for every arm, from the ratio-adjusted counts at the patient's levels
 * (`adj[f·K + b] = n_{f,l_f,b} / r_b`), the factor weights and the arm ratios; written to `out`.
 * Shared by minimizationAssign and the simulation.
 */
export function minimizationScores(
  adj: ArrayLike<number>,
  weights: ArrayLike<number>,
  ratios: ArrayLike<number>,
  variance: boolean,
  out: number[],
): void {
  const k = ratios.length;
  const nf = weights.length;
  const x = scratch.x;
  x.length = k;
  out.length = k;
  for (let a = 0; a < k; a++) {
    let g = 0;
    for (let f = 0; f < nf; f++) {
      for (let b = 0; b < k; b++) x[b] = adj[f * k + b]!;
      x[a] = x[a]! + 1 / ratios[a]!;
      g += weights[f]! * imbalance(x, variance);
    }
    out[a] = g;
  }
}

/**
 * The Pocock–Simon draw: arms within EPS of the smallest score share probability p, the others
 * share 1 − p; all equal means a uniform draw. Draws: one nextFloat() unless all tie, then one nextInt().
 */
export function chooseMinimizing(
  values: ArrayLike<number>,
  p: number,
  rng: Rng,
): { index: number; chosenBy: MinimizationResult['chosenBy'] } {
  const k = values.length;
  let best = Infinity;
  for (let a = 0; a < k; a++) if (values[a]! < best) best = values[a]!;
  const minima: number[] = [];
  const others: number[] = [];
  for (let a = 0; a < k; a++) (values[a]! - best <= EPS ? minima : others).push(a);
  if (others.length === 0) return { index: rng.nextInt(k), chosenBy: 'tie' };
  if (rng.nextFloat() < p) {
    return { index: minima[rng.nextInt(minima.length)]!, chosenBy: minima.length > 1 ? 'tie' : 'minimum' };
  }
  return { index: others[rng.nextInt(others.length)]!, chosenBy: 'random' };
}

/** Range (max − min) or population variance of the values. */
export function imbalance(x: ArrayLike<number>, variance = false): number {
  if (!variance) {
    let lo = Infinity;
    let hi = -Infinity;
    for (let i = 0; i < x.length; i++) {
      const v = x[i]!;
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
    return hi - lo;
  }
  let mean = 0;
  for (let i = 0; i < x.length; i++) mean += x[i]!;
  mean /= x.length;
  let s = 0;
  for (let i = 0; i < x.length; i++) s += (x[i]! - mean) ** 2;
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
