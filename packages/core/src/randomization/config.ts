import { z } from 'zod';
import { rowIdSchema } from '../ids.js';

/** Numeric bands of a factor level: far beyond any clinical value, finite so a band is storable. */
const BAND_LIMIT = 1e9;

/**
 * Randomization configuration (issue 15): arms and ratio, the method, block sizes, strata or
 * minimization factors, and the eligibility a patient must meet first. Pure data: the server
 * stores it as JSON and locks it once the first patient is randomized.
 */

export const RANDOMIZATION_METHODS = ['simple', 'block', 'stratified_block', 'minimization'] as const;
export type RandomizationMethod = (typeof RANDOMIZATION_METHODS)[number];

export const RANDOMIZATION_METHOD_LABELS: Record<RandomizationMethod, string> = {
  simple: '简单随机',
  block: '区组随机',
  stratified_block: '分层区组随机',
  minimization: '最小化随机',
};

export const randomizationArmSchema = z.object({
  code: z.string().trim().min(1).max(20),
  label: z.string().trim().min(1).max(50),
  ratio: z.number().int().min(1).max(10),
});
export type RandomizationArm = z.infer<typeof randomizationArmSchema>;

export const randomizationFactorLevelSchema = z.object({
  code: z.string().trim().min(1).max(20),
  label: z.string().trim().min(1).max(50),
  /** Option codes of the item, or department ids as text, that fall in this level. */
  values: z.array(z.string()).max(200).optional(),
  /** Numeric band on the item's value: min inclusive, max exclusive; either may be open. */
  min: z.number().min(-BAND_LIMIT).max(BAND_LIMIT).optional(),
  max: z.number().min(-BAND_LIMIT).max(BAND_LIMIT).optional(),
});
export type RandomizationFactorLevel = z.infer<typeof randomizationFactorLevelSchema>;

export const randomizationFactorSchema = z.object({
  key: z
    .string()
    .trim()
    .min(1)
    .max(30)
    .regex(/^[A-Za-z0-9_]+$/),
  label: z.string().trim().min(1).max(50),
  source: z.enum(['dept', 'item']),
  crfId: rowIdSchema.optional(),
  itemName: z.string().min(1).max(100).optional(),
  weight: z.number().positive().max(100).default(1),
  levels: z.array(randomizationFactorLevelSchema).min(2).max(20),
});
export type RandomizationFactor = z.infer<typeof randomizationFactorSchema>;

export const randomizationEligibilitySchema = z.object({
  /** CRFs that must be submitted before randomization (e.g. 入选标准). */
  crfIds: z.array(rowIdSchema).max(50).default([]),
  /** Item values required: the item's value must be one of `values`. */
  items: z
    .array(
      z.object({
        crfId: rowIdSchema,
        itemName: z.string().min(1).max(100),
        values: z.array(z.string()).min(1).max(100),
      }),
    )
    .max(50)
    .default([]),
});
export type RandomizationEligibility = z.infer<typeof randomizationEligibilitySchema>;

export const minimizationSettingsSchema = z.object({
  imbalance: z.enum(['range', 'variance']).default('range'),
  /** Probability of assigning the arm with the smallest imbalance score (Pocock–Simon p). */
  p: z.number().min(0.5).max(1).default(0.8),
});
export type MinimizationSettings = z.infer<typeof minimizationSettingsSchema>;

export const randomizationConfigSchema = z.object({
  method: z.enum(RANDOMIZATION_METHODS),
  arms: z.array(randomizationArmSchema).min(2).max(6),
  blinded: z.boolean(),
  blockSizes: z.array(z.number().int().min(1).max(60)).max(8).default([]),
  listLength: z.number().int().min(1).max(10000).default(1000),
  factors: z.array(randomizationFactorSchema).max(6).default([]),
  minimization: minimizationSettingsSchema.optional(),
  eligibility: randomizationEligibilitySchema.default({ crfIds: [], items: [] }),
});
export type RandomizationConfig = z.infer<typeof randomizationConfigSchema>;
/** What a client may send: defaults not yet applied. */
export type RandomizationConfigInput = z.input<typeof randomizationConfigSchema>;

export function ratioSum(config: Pick<RandomizationConfig, 'arms'>): number {
  return config.arms.reduce((s, a) => s + a.ratio, 0);
}

export function isBlockMethod(method: RandomizationMethod): boolean {
  return method === 'block' || method === 'stratified_block';
}

/**
 * Cross-field rules the schema cannot say. Returns Chinese messages, empty when the
 * configuration is usable. Call after `randomizationConfigSchema.parse`.
 */
export function validateRandomizationConfig(config: RandomizationConfig): string[] {
  const errors: string[] = [];
  const dup = <T>(xs: T[]): T[] => xs.filter((x, i) => xs.indexOf(x) !== i);

  const armDups = dup(config.arms.map((a) => a.code));
  if (armDups.length > 0) {
    errors.push(`分组代码重复：${[...new Set(armDups)].join('、')}`);
  }
  const sum = ratioSum(config);

  if (isBlockMethod(config.method)) {
    if (config.blockSizes.length === 0) {
      errors.push('区组随机必须至少设置一个区组长度');
    }
    if (dup(config.blockSizes).length > 0) {
      errors.push('区组长度不能重复');
    }
    for (const size of config.blockSizes) {
      if (size % sum !== 0) {
        errors.push(`区组长度必须是分配比例之和的整数倍（${size} 不是 ${sum} 的整数倍）`);
      }
    }
  }

  if (config.method === 'stratified_block' && config.factors.length === 0) {
    errors.push('分层区组随机必须至少设置一个分层因素');
  }
  if (config.method === 'minimization') {
    if (config.factors.length === 0) {
      errors.push('最小化随机必须至少设置一个因素');
    }
    if (!config.minimization) {
      errors.push('最小化随机必须设置不平衡度量和分配概率');
    }
  }
  if ((config.method === 'simple' || config.method === 'block') && config.factors.length > 0) {
    errors.push('简单随机和区组随机不使用分层因素');
  }

  const factorDups = dup(config.factors.map((f) => f.key));
  if (factorDups.length > 0) {
    errors.push(`因素代码重复：${[...new Set(factorDups)].join('、')}`);
  }
  if (config.method === 'stratified_block') {
    const strata = config.factors.reduce((n, f) => n * f.levels.length, 1);
    if (strata > 1000) {
      errors.push(`分层数过多（${strata}），不能超过 1000`);
    }
  }

  for (const f of config.factors) {
    if (f.source === 'item' && (f.crfId === undefined || !f.itemName)) {
      errors.push(`因素“${f.label}”来自表单项，必须指定表单和题目`);
    }
    const levelDups = dup(f.levels.map((l) => l.code));
    if (levelDups.length > 0) {
      errors.push(`因素“${f.label}”的水平代码重复：${[...new Set(levelDups)].join('、')}`);
    }
    const seen = new Map<string, string>();
    for (const l of f.levels) {
      const hasValues = (l.values?.length ?? 0) > 0;
      const hasBand = l.min !== undefined || l.max !== undefined;
      if (!hasValues && !hasBand) {
        errors.push(`因素“${f.label}”的水平“${l.label}”必须设置取值或数值范围`);
      }
      if (f.source === 'dept' && hasBand) {
        errors.push(`因素“${f.label}”来自中心，水平“${l.label}”不能使用数值范围`);
      }
      if (l.min !== undefined && l.max !== undefined && l.min >= l.max) {
        errors.push(`因素“${f.label}”的水平“${l.label}”的下限必须小于上限`);
      }
      for (const v of l.values ?? []) {
        const other = seen.get(v);
        if (other !== undefined && other !== l.code) {
          errors.push(`因素“${f.label}”的取值“${v}”同时属于多个水平`);
        }
        seen.set(v, l.code);
      }
    }
    const bands = f.levels
      .filter((l) => l.min !== undefined || l.max !== undefined)
      .map((l) => ({ label: l.label, min: l.min ?? -Infinity, max: l.max ?? Infinity }))
      .sort((a, b) => a.min - b.min);
    for (let i = 1; i < bands.length; i++) {
      if (bands[i]!.min < bands[i - 1]!.max) {
        errors.push(`因素“${f.label}”的数值范围“${bands[i - 1]!.label}”与“${bands[i]!.label}”重叠`);
      }
    }
  }
  return errors;
}

/** Parse and check in one step: the zod result plus the cross-field messages. */
export function parseRandomizationConfig(
  input: unknown,
): { ok: true; config: RandomizationConfig } | { ok: false; errors: string[] } {
  const parsed = randomizationConfigSchema.safeParse(input);
  if (!parsed.success) {
    return {
      ok: false,
      errors: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`),
    };
  }
  const errors = validateRandomizationConfig(parsed.data);
  return errors.length > 0 ? { ok: false, errors } : { ok: true, config: parsed.data };
}
