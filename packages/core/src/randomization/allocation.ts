import Papa from 'papaparse';
import { ratioSum, type RandomizationConfig } from './config.js';
import { createRng, deriveSeed } from './rng.js';
import { parseStratumKey, stratificationFactors, stratumKey as buildStratumKey } from './strata.js';
import type { AllocationSlot, Rng } from './types.js';

/**
 * Permuted blocks (issue 15). For each block: draw its size uniformly from `blockSizes`, fill it
 * with each arm `ratio · size / Σratio` times in the configured arm order, then shuffle it with
 * Fisher–Yates (i from size−1 down to 1, j = nextInt(i + 1), swap). One generator per stratum,
 * seeded with deriveSeed(seed, 'stratum:' + stratumKey), so strata are independent and a stratum's
 * list does not depend on how many strata exist.
 *
 * Returns a function giving the next block each time; lists are prefixes of this stream, so a
 * list generated longer later starts with exactly the slots generated before.
 */
export function blockStream(config: RandomizationConfig, seed: string, stratum: string): () => string[] {
  const sizes = config.blockSizes;
  const sum = ratioSum(config);
  if (sizes.length === 0 || sizes.some((s) => s % sum !== 0)) {
    throw new Error('区组长度必须是分配比例之和的整数倍');
  }
  const rng = createRng(deriveSeed(seed, `stratum:${stratum}`));
  return () => {
    const size = sizes[rng.nextInt(sizes.length)]!;
    const per = size / sum;
    const block: string[] = [];
    for (const arm of config.arms) {
      for (let k = 0; k < arm.ratio * per; k++) block.push(arm.code);
    }
    for (let i = block.length - 1; i > 0; i--) {
      const j = rng.nextInt(i + 1);
      const t = block[i]!;
      block[i] = block[j]!;
      block[j] = t;
    }
    return block;
  };
}

/** The first `length` slots (default `config.listLength`) of a stratum's permuted-block list. */
export function generateBlockList(
  config: RandomizationConfig,
  seed: string,
  stratum: string,
  length: number = config.listLength,
): AllocationSlot[] {
  const next = blockStream(config, seed, stratum);
  const slots: AllocationSlot[] = [];
  let blockNo = 0;
  while (slots.length < length) {
    const block = next();
    blockNo++;
    for (const arm of block) {
      if (slots.length >= length) break;
      slots.push({ slot: slots.length + 1, block: blockNo, blockSize: block.length, arm });
    }
  }
  return slots;
}

/** Simple (unrestricted) randomization: arm i with probability ratio_i / Σratio. */
export function simpleAssign(config: Pick<RandomizationConfig, 'arms'>, rng: Rng): string {
  let r = rng.nextInt(ratioSum(config));
  for (const arm of config.arms) {
    if (r < arm.ratio) return arm.code;
    r -= arm.ratio;
  }
  // Unreachable: r < Σratio.
  return config.arms[config.arms.length - 1]!.code;
}

export type UploadedListResult =
  { ok: true; lists: Record<string, AllocationSlot[]> } | { ok: false; errors: string[] };

const HEADER_ALIASES: Record<string, 'stratum' | 'slot' | 'arm' | 'block' | 'blockSize'> = {
  stratum: 'stratum',
  分层: 'stratum',
  slot: 'slot',
  序号: 'slot',
  arm: 'arm',
  分组: 'arm',
  组别: 'arm',
  block: 'block',
  区组: 'block',
  blocksize: 'blockSize',
  区组长度: 'blockSize',
};

/**
 * An uploaded allocation table (as REDCap allows), CSV with a header row:
 * `slot` (序号) and `arm` (分组, an arm code); for stratified blocks either a `stratum` column with
 * the stratum key (`site=01|sex=M`) or one column per stratification factor key holding level
 * codes; optional `block` and `blockSize`. Each stratum's slots must run 1..n without gaps.
 * Returns the slots per stratum ordered by slot, or Chinese errors by line (the header is line 1).
 */
export function parseUploadedList(csvText: string, config: RandomizationConfig): UploadedListResult {
  if (config.method === 'minimization') {
    return { ok: false, errors: ['最小化随机不使用随机分配表'] };
  }
  const parsed = Papa.parse<string[]>(csvText.replace(/^\uFEFF/, ''), { skipEmptyLines: 'greedy' });
  const rows = parsed.data;
  if (rows.length < 2) return { ok: false, errors: ['随机分配表为空'] };
  const header = rows[0]!.map((h) => h.trim());
  const col: Partial<Record<'stratum' | 'slot' | 'arm' | 'block' | 'blockSize', number>> = {};
  const factorCols: Record<string, number> = {};
  const factors = stratificationFactors(config);
  header.forEach((h, i) => {
    const role = HEADER_ALIASES[h.toLowerCase()] ?? HEADER_ALIASES[h];
    if (role) col[role] = i;
    else if (factors.some((f) => f.key === h)) factorCols[h] = i;
  });
  const errors: string[] = [];
  if (col.slot === undefined) errors.push('第 1 行：缺少列 slot（序号）');
  if (col.arm === undefined) errors.push('第 1 行：缺少列 arm（分组）');
  const byFactorColumns = factors.length > 0 && col.stratum === undefined;
  if (byFactorColumns) {
    for (const f of factors) {
      if (factorCols[f.key] === undefined) errors.push(`第 1 行：缺少分层因素列 ${f.key}（${f.label}）`);
    }
  }
  if (errors.length > 0) return { ok: false, errors };

  const arms = new Set(config.arms.map((a) => a.code));
  const lists: Record<string, AllocationSlot[]> = {};
  const seen = new Map<string, number>();
  for (let r = 1; r < rows.length; r++) {
    const line = r + 1;
    const row = rows[r]!;
    const cell = (i: number | undefined): string => (i === undefined ? '' : (row[i] ?? '').trim());
    let key: string;
    try {
      if (factors.length === 0) {
        key = '';
        if (col.stratum !== undefined && cell(col.stratum) !== '') {
          throw new Error('非分层随机的分层必须为空');
        }
      } else if (byFactorColumns) {
        key = buildStratumKey(config, Object.fromEntries(factors.map((f) => [f.key, cell(factorCols[f.key])])));
      } else {
        key = cell(col.stratum);
        if (buildStratumKey(config, parseStratumKey(key)) !== key) {
          throw new Error(`分层“${key}”无效`);
        }
      }
    } catch (e) {
      errors.push(`第 ${line} 行：${(e as Error).message}`);
      continue;
    }
    const slotText = cell(col.slot);
    const slot = Number(slotText);
    if (!/^\d+$/.test(slotText) || slot < 1) {
      errors.push(`第 ${line} 行：序号必须是正整数`);
      continue;
    }
    const arm = cell(col.arm);
    if (!arms.has(arm)) {
      errors.push(`第 ${line} 行：分组“${arm}”不存在`);
      continue;
    }
    const dupKey = `${key}\u0000${slot}`;
    const prev = seen.get(dupKey);
    if (prev !== undefined) {
      errors.push(`第 ${line} 行：序号 ${slot} 与第 ${prev} 行重复`);
      continue;
    }
    seen.set(dupKey, line);
    const num = (i: number | undefined): number => {
      const t = cell(i);
      return /^\d+$/.test(t) ? Number(t) : 0;
    };
    (lists[key] ??= []).push({ slot, block: num(col.block), blockSize: num(col.blockSize), arm });
  }
  for (const [key, list] of Object.entries(lists)) {
    list.sort((a, b) => a.slot - b.slot);
    const gap = list.findIndex((s, i) => s.slot !== i + 1);
    if (gap >= 0) {
      errors.push(`分层“${key || '全部'}”的序号不连续：缺少序号 ${gap + 1}`);
    }
  }
  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, lists };
}
