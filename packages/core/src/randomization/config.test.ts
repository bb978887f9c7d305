import { describe, expect, it } from 'vitest';
import { parseRandomizationConfig, validateRandomizationConfig } from './config.js';
import { AGE, SEX, SITE, config } from './test-fixtures.js';

describe('RAND-03: randomization configuration', () => {
  it('accepts a stratified block design and fills the defaults', () => {
    const c = config({ method: 'stratified_block', blockSizes: [4, 6], factors: [SITE, SEX] });
    expect(validateRandomizationConfig(c)).toEqual([]);
    expect(c.listLength).toBe(1000);
    expect(c.factors[0]!.weight).toBe(1);
    expect(c.eligibility).toEqual({ crfIds: [], items: [] });
  });

  it('refuses a block size that is not a multiple of the ratio sum', () => {
    const c = config({
      arms: [
        { code: 'A', label: '试验组', ratio: 2 },
        { code: 'B', label: '对照组', ratio: 1 },
      ],
      blockSizes: [3, 4],
    });
    expect(validateRandomizationConfig(c)).toEqual(['区组长度必须是分配比例之和的整数倍（4 不是 3 的整数倍）']);
  });

  it.each([
    [
      {
        arms: [
          { code: 'A', label: '甲', ratio: 1 },
          { code: 'A', label: '乙', ratio: 1 },
        ],
      },
      '分组代码重复：A',
    ],
    [{ blockSizes: [] }, '区组随机必须至少设置一个区组长度'],
    [{ method: 'stratified_block' as const }, '分层区组随机必须至少设置一个分层因素'],
    [{ method: 'minimization' as const, blockSizes: [] }, '最小化随机必须至少设置一个因素'],
    [{ factors: [SEX] }, '简单随机和区组随机不使用分层因素'],
    [{ method: 'minimization' as const, factors: [SEX], blockSizes: [] }, '最小化随机必须设置不平衡度量和分配概率'],
    [
      {
        method: 'stratified_block' as const,
        factors: [
          {
            ...AGE,
            levels: [
              { code: 'Y', label: '<65岁', max: 66 },
              { code: 'O', label: '≥65岁', min: 65 },
            ],
          },
        ],
      },
      '因素“年龄”的数值范围“<65岁”与“≥65岁”重叠',
    ],
    [
      { method: 'stratified_block' as const, factors: [{ ...SEX, crfId: undefined }] },
      '因素“性别”来自表单项，必须指定表单和题目',
    ],
  ])('cross-field rule %#', (partial, message) => {
    expect(validateRandomizationConfig(config(partial))).toContain(message);
  });

  it('parseRandomizationConfig gives field paths for schema errors', () => {
    const r = parseRandomizationConfig({ method: 'block', arms: [{ code: 'A', label: 'A', ratio: 1 }], blinded: true });
    expect(r.ok).toBe(false);
    expect(!r.ok && r.errors[0]).toMatch(/^arms/);
  });
});
