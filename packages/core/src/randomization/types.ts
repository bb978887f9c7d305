/** Shared shapes of the randomization core (issue 15). */

/** A deterministic source of randomness; see rng.ts for the generator and its seeding. */
export interface Rng {
  /** Uniform integer in [0, maxExclusive), without modulo bias. */
  nextInt(maxExclusive: number): number;
  /** Uniform float in [0, 1) with 53 random bits. */
  nextFloat(): number;
}

/** One slot of a generated or uploaded allocation list, within one stratum. */
export interface AllocationSlot {
  /** 1-based position within the stratum's list. */
  slot: number;
  /** 1-based block number (uploaded lists without blocks: 0). */
  block: number;
  /** Size of the block the slot belongs to (uploaded lists without blocks: 0). */
  blockSize: number;
  /** Arm code. */
  arm: string;
}

/** counts[factorKey][levelCode][armCode] = patients already assigned with that level to that arm. */
export type MinimizationCounts = Record<string, Record<string, Record<string, number>>>;

export interface MinimizationResult {
  arm: string;
  /** Imbalance score per arm code had the patient been given that arm (lower is better). */
  scores: Record<string, number>;
  /** minimum: the single minimizing arm, drawn with probability p; tie: several arms (or all)
   *  shared the minimum and one of them was drawn; random: a non-minimizing arm, drawn with 1 − p. */
  chosenBy: 'minimum' | 'random' | 'tie';
}

export interface SimulationOptions {
  patients: number;
  runs: number;
  /** Per factor, the probability of each level; missing factors are uniform over levels. */
  distributions?: Record<string, Record<string, number>>;
  seed: string;
}

export interface SummaryStats {
  mean: number;
  min: number;
  max: number;
}

export interface SimulationResult {
  patients: number;
  runs: number;
  seed: string;
  method: string;
  /** Per arm: patients assigned per run. */
  arms: { code: string; label: string; ratio: number; expected: number; mean: number; min: number; max: number }[];
  /** Overall imbalance per run: max − min of ratio-adjusted arm counts (count / ratio). */
  overall: {
    mean: number;
    p95: number;
    max: number;
    /** histogram[i] = runs whose imbalance rounded to the nearest integer is i. */
    histogram: { imbalance: number; runs: number }[];
  };
  /** Per stratum (stratified_block; '' for unstratified methods). */
  strata: { stratum: string; patientsMean: number; imbalanceMean: number; imbalanceMax: number }[];
  /** Per factor level (marginal), across all methods that have factors. */
  factorLevels: { factor: string; level: string; imbalanceMean: number; imbalanceMax: number }[];
  /** Block designs: share of assignments a convergence-strategy guesser gets right; else null. */
  predictability: number | null;
  /** Chance of a correct guess with no information: the largest arm share. */
  predictabilityBaseline: number;
}
