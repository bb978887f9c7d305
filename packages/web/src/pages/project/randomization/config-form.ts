import {
  parseRandomizationConfig,
  type RandomizationConfig,
  type RandomizationConfigInput,
  type RandomizationMethod,
} from '@ecrf/core';

/**
 * The configuration form's values (随机列表): lists a person types as text ("4, 6", "1, 2") and the parts of the
 * configuration the method does not use. `toConfig` turns them into the @ecrf/core configuration the server checks
 * with the same schema; `fromConfig` fills the form from the version in force.
 */
export interface LevelValues {
  code: string;
  label: string;
  /** Option codes (CRF item) or department ids (site) in this level, comma separated. */
  values?: string[] | string;
  min?: number | null;
  max?: number | null;
}

export interface FactorValues {
  key: string;
  label: string;
  source: 'dept' | 'item';
  crfId?: number | null;
  itemName?: string | null;
  weight?: number | null;
  levels: LevelValues[];
}

export interface ConfigFormValues {
  method: RandomizationMethod;
  blinded: boolean;
  arms: Array<{ code: string; label: string; ratio: number }>;
  blockSizes: string;
  listLength: number;
  factors: FactorValues[];
  imbalance: 'range' | 'variance';
  p: number;
  eligibilityCrfIds: number[];
  eligibilityItems: Array<{ crfId?: number | null; itemName?: string; values?: string }>;
}

/** "4, 6" / "4，6" / "4 6" → [4, 6]; anything not a whole number is kept as NaN so the schema refuses it. */
export function splitList(text: string | string[] | undefined | null): string[] {
  if (Array.isArray(text)) return text.map((v) => v.trim()).filter(Boolean);
  return (text ?? '')
    .split(/[,，、;；\s]+/)
    .map((v) => v.trim())
    .filter(Boolean);
}

const num = (v: number | null | undefined) => (v === null || v === undefined || Number.isNaN(v) ? undefined : v);

export const DEFAULT_FORM: ConfigFormValues = {
  method: 'stratified_block',
  blinded: true,
  arms: [
    { code: 'A', label: '试验组', ratio: 1 },
    { code: 'B', label: '对照组', ratio: 1 },
  ],
  blockSizes: '4, 6',
  listLength: 200,
  factors: [],
  imbalance: 'range',
  p: 0.8,
  eligibilityCrfIds: [],
  eligibilityItems: [],
};

export function toConfig(values: ConfigFormValues): RandomizationConfigInput {
  const method = values.method;
  const usesFactors = method === 'stratified_block' || method === 'minimization';
  const blocks = method === 'block' || method === 'stratified_block';
  return {
    method,
    blinded: Boolean(values.blinded),
    arms: (values.arms ?? []).map((a) => ({ code: a.code?.trim(), label: a.label?.trim(), ratio: Number(a.ratio) })),
    blockSizes: blocks ? splitList(values.blockSizes).map(Number) : [],
    listLength: Number(values.listLength) || 1000,
    factors: usesFactors
      ? (values.factors ?? []).map((f) => ({
          key: f.key?.trim(),
          label: f.label?.trim(),
          source: f.source,
          ...(f.source === 'item' && f.crfId ? { crfId: f.crfId } : {}),
          ...(f.source === 'item' && f.itemName ? { itemName: f.itemName.trim() } : {}),
          // Weights matter to minimization only; strata ignore them.
          weight: method === 'minimization' ? (num(f.weight) ?? 1) : 1,
          levels: (f.levels ?? []).map((l) => {
            const vals = splitList(l.values);
            const min = f.source === 'item' ? num(l.min) : undefined;
            const max = f.source === 'item' ? num(l.max) : undefined;
            return {
              code: l.code?.trim(),
              label: l.label?.trim(),
              ...(vals.length > 0 ? { values: vals } : {}),
              ...(min !== undefined ? { min } : {}),
              ...(max !== undefined ? { max } : {}),
            };
          }),
        }))
      : [],
    ...(method === 'minimization' ? { minimization: { imbalance: values.imbalance, p: Number(values.p) } } : {}),
    eligibility: {
      crfIds: values.eligibilityCrfIds ?? [],
      items: (values.eligibilityItems ?? []).map((i) => ({
        crfId: Number(i.crfId),
        itemName: (i.itemName ?? '').trim(),
        values: splitList(i.values),
      })),
    },
  };
}

export function fromConfig(config: Partial<RandomizationConfig> | null | undefined): ConfigFormValues {
  if (!config?.method) return DEFAULT_FORM;
  return {
    method: config.method,
    blinded: config.blinded ?? true,
    arms: config.arms ?? DEFAULT_FORM.arms,
    blockSizes: (config.blockSizes ?? []).join(', '),
    listLength: config.listLength ?? DEFAULT_FORM.listLength,
    factors: (config.factors ?? []).map((f) => ({
      key: f.key,
      label: f.label,
      source: f.source,
      crfId: f.crfId ?? null,
      itemName: f.itemName ?? null,
      weight: f.weight,
      levels: f.levels.map((l) => ({
        code: l.code,
        label: l.label,
        values: f.source === 'dept' ? (l.values ?? []) : (l.values ?? []).join(', '),
        min: l.min ?? null,
        max: l.max ?? null,
      })),
    })),
    imbalance: config.minimization?.imbalance ?? 'range',
    p: config.minimization?.p ?? 0.8,
    eligibilityCrfIds: config.eligibility?.crfIds ?? [],
    eligibilityItems: (config.eligibility?.items ?? []).map((i) => ({
      crfId: i.crfId,
      itemName: i.itemName,
      values: i.values.join(', '),
    })),
  };
}

/** The form's configuration checked by the core, as the server will: the messages a person reads before saving. */
export function checkForm(values: ConfigFormValues): string[] {
  const parsed = parseRandomizationConfig(toConfig(values));
  return parsed.ok ? [] : parsed.errors;
}

/** Number of strata of stratified blocks (the product of the factors' level counts). */
export function strataCount(values: Pick<ConfigFormValues, 'method' | 'factors'>): number {
  if (values.method !== 'stratified_block') return 1;
  return (values.factors ?? []).reduce((n, f) => n * Math.max(1, f.levels?.length ?? 0), 1);
}

/**
 * Simulation distributions from the panel's percentages: per factor, each level's share (0..1). Factors whose
 * shares are all empty are left out (the core takes them as uniform); shares are scaled to sum to 1.
 */
export function toDistributions(
  shares: Record<string, Record<string, number | null | undefined>> | undefined,
): Record<string, Record<string, number>> | undefined {
  const out: Record<string, Record<string, number>> = {};
  for (const [factor, levels] of Object.entries(shares ?? {})) {
    const entries = Object.entries(levels ?? {}).filter(([, v]) => typeof v === 'number' && v >= 0) as [
      string,
      number,
    ][];
    const sum = entries.reduce((s, [, v]) => s + v, 0);
    if (sum <= 0) continue;
    out[factor] = Object.fromEntries(entries.map(([k, v]) => [k, v / sum]));
  }
  return Object.keys(out).length > 0 ? out : undefined;
}
