import type { RandomizationConfig, RandomizationFactor } from './config.js';

/**
 * The level a patient's value falls in: an option code or department id listed in a level's
 * `values`, or a number in a level's band [min, max). Null when the value is empty or fits no
 * level; the server then refuses to randomize, since a guessed stratum would break the balance.
 */
export function resolveFactorLevel(
  factor: RandomizationFactor,
  value: string | number | null | undefined,
): string | null {
  if (value === null || value === undefined) return null;
  const text = String(value).trim();
  if (text === '') return null;
  for (const level of factor.levels) {
    if (level.values?.includes(text)) return level.code;
  }
  const num = typeof value === 'number' ? value : Number(text);
  if (!Number.isFinite(num)) return null;
  for (const level of factor.levels) {
    if (level.min === undefined && level.max === undefined) continue;
    if ((level.min === undefined || num >= level.min) && (level.max === undefined || num < level.max)) {
      return level.code;
    }
  }
  return null;
}

/** Factors that define strata: only stratified blocks are stratified; minimization balances margins. */
export function stratificationFactors(config: RandomizationConfig): RandomizationFactor[] {
  return config.method === 'stratified_block' ? config.factors : [];
}

/**
 * The stratum a patient belongs to, as `factorKey=levelCode` joined by `|` in the factors'
 * configured order (e.g. `site=01|sex=M`); '' for unstratified methods. Throws when a level
 * is missing or unknown.
 */
export function stratumKey(config: RandomizationConfig, levels: Record<string, string>): string {
  return stratificationFactors(config)
    .map((f) => {
      const code = levels[f.key];
      if (code === undefined || !f.levels.some((l) => l.code === code)) {
        throw new Error(`因素“${f.label}”的水平无效：${code ?? '未填写'}`);
      }
      return `${f.key}=${code}`;
    })
    .join('|');
}

/** The levels of a stratum key; the inverse of stratumKey. */
export function parseStratumKey(key: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (key === '') return out;
  for (const part of key.split('|')) {
    const eq = part.indexOf('=');
    if (eq > 0) out[part.slice(0, eq)] = part.slice(eq + 1);
  }
  return out;
}

export interface StratumInfo {
  key: string;
  levels: Record<string, string>;
  /** Level labels joined, e.g. 北京中心 / 男; '全部' when unstratified. */
  label: string;
}

/** Every stratum of the configuration (the cartesian product of the stratification factors). */
export function allStrata(config: RandomizationConfig): StratumInfo[] {
  let acc: { levels: Record<string, string>; labels: string[] }[] = [{ levels: {}, labels: [] }];
  for (const f of stratificationFactors(config)) {
    acc = acc.flatMap((s) =>
      f.levels.map((l) => ({ levels: { ...s.levels, [f.key]: l.code }, labels: [...s.labels, l.label] })),
    );
  }
  return acc.map((s) => ({
    key: stratumKey(config, s.levels),
    levels: s.levels,
    label: s.labels.length > 0 ? s.labels.join(' / ') : '全部',
  }));
}
