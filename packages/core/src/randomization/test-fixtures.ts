import { randomizationConfigSchema, type RandomizationConfig, type RandomizationConfigInput } from './config.js';

/** Config builders for the randomization tests (not exported from the package). */
export function config(partial: Partial<RandomizationConfigInput> = {}): RandomizationConfig {
  return randomizationConfigSchema.parse({
    method: 'block',
    arms: [
      { code: 'A', label: '试验组', ratio: 1 },
      { code: 'B', label: '对照组', ratio: 1 },
    ],
    blinded: true,
    blockSizes: [4],
    ...partial,
  });
}

export const SITE = {
  key: 'site',
  label: '中心',
  source: 'dept' as const,
  levels: [
    { code: 'S1', label: '北京中心', values: ['11'] },
    { code: 'S2', label: '上海中心', values: ['12'] },
    { code: 'S3', label: '广州中心', values: ['13'] },
  ],
};

export const SEX = {
  key: 'sex',
  label: '性别',
  source: 'item' as const,
  crfId: 7,
  itemName: 'sex',
  levels: [
    { code: 'M', label: '男', values: ['1'] },
    { code: 'F', label: '女', values: ['2'] },
  ],
};

export const AGE = {
  key: 'age',
  label: '年龄',
  source: 'item' as const,
  crfId: 7,
  itemName: 'age',
  levels: [
    { code: 'Y', label: '<65岁', max: 65 },
    { code: 'O', label: '≥65岁', min: 65 },
  ],
};

export const SEED = '00112233445566778899aabbccddeeff';

/** Arm codes for ratio lists: A, B, C… */
export function armsFor(ratios: number[]): RandomizationConfigInput['arms'] {
  return ratios.map((ratio, i) => ({ code: String.fromCharCode(65 + i), label: `组${i + 1}`, ratio }));
}
