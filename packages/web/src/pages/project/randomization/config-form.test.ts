import { describe, expect, it } from 'vitest';
import { parseRandomizationConfig } from '@ecrf/core';
import {
  checkForm,
  DEFAULT_FORM,
  fromConfig,
  splitList,
  strataCount,
  toConfig,
  toDistributions,
  type ConfigFormValues,
} from './config-form';

const stratified: ConfigFormValues = {
  ...DEFAULT_FORM,
  method: 'stratified_block',
  blockSizes: '4，6',
  listLength: 100,
  factors: [
    {
      key: 'site',
      label: '中心',
      source: 'dept',
      weight: 3,
      levels: [
        { code: 'S1', label: '根机构', values: ['1'] },
        { code: 'S2', label: '其他', values: ['2'] },
      ],
    },
    {
      key: 'age',
      label: '年龄',
      source: 'item',
      crfId: 7,
      itemName: 'age',
      levels: [
        { code: 'Y', label: '<65', max: 65, values: '' },
        { code: 'O', label: '≥65', min: 65, max: null },
      ],
    },
  ],
  eligibilityCrfIds: [3],
  eligibilityItems: [{ crfId: 3, itemName: 'ic', values: '1, 2' }],
};

describe('randomization configuration form', () => {
  it('splits typed lists on Chinese and Latin separators', () => {
    expect(splitList('4，6 8、10;12')).toEqual(['4', '6', '8', '10', '12']);
    expect(splitList(' ')).toEqual([]);
    expect(splitList(['1', ' 2 '])).toEqual(['1', '2']);
    expect(splitList(undefined)).toEqual([]);
  });

  it('turns stratified blocks into a configuration the core accepts, without weights or open bands', () => {
    const config = toConfig(stratified);
    expect(config.blockSizes).toEqual([4, 6]);
    expect(config.factors?.[0]).toMatchObject({
      source: 'dept',
      weight: 1,
      levels: [{ values: ['1'] }, { values: ['2'] }],
    });
    expect(config.factors?.[1]?.levels).toEqual([
      { code: 'Y', label: '<65', max: 65 },
      { code: 'O', label: '≥65', min: 65 },
    ]);
    expect(config.eligibility).toEqual({ crfIds: [3], items: [{ crfId: 3, itemName: 'ic', values: ['1', '2'] }] });
    expect(config.minimization).toBeUndefined();
    expect(parseRandomizationConfig(config).ok).toBe(true);
    expect(checkForm(stratified)).toEqual([]);
    expect(strataCount(stratified)).toBe(4);
  });

  it('drops what the method does not use: factors and block sizes for simple randomization', () => {
    const config = toConfig({ ...stratified, method: 'simple' });
    expect(config.factors).toEqual([]);
    expect(config.blockSizes).toEqual([]);
    expect(checkForm({ ...stratified, method: 'simple' })).toEqual([]);
    expect(strataCount({ ...stratified, method: 'simple' })).toBe(1);
  });

  it('keeps minimization weights, measure and p', () => {
    const config = toConfig({ ...stratified, method: 'minimization', imbalance: 'variance', p: 0.9 });
    expect(config.factors?.[0]?.weight).toBe(3);
    expect(config.minimization).toEqual({ imbalance: 'variance', p: 0.9 });
    expect(config.blockSizes).toEqual([]);
  });

  it("reports the core's messages: a block size not a multiple of the ratio sum", () => {
    const errors = checkForm({
      ...stratified,
      arms: [
        { code: 'A', label: '试验组', ratio: 2 },
        { code: 'B', label: '对照组', ratio: 1 },
      ],
      blockSizes: '4, 6',
    });
    expect(errors).toContain('区组长度必须是分配比例之和的整数倍（4 不是 3 的整数倍）');
  });

  it('fills the form back from a saved configuration (round trip)', () => {
    const parsed = parseRandomizationConfig(toConfig(stratified));
    if (!parsed.ok) throw new Error(parsed.errors.join());
    const values = fromConfig(parsed.config);
    expect(values.blockSizes).toBe('4, 6');
    expect(values.factors[0]!.levels[0]!.values).toEqual(['1']);
    expect(values.eligibilityItems).toEqual([{ crfId: 3, itemName: 'ic', values: '1, 2' }]);
    expect(toConfig(values)).toEqual(toConfig(stratified));
    expect(fromConfig(null)).toBe(DEFAULT_FORM);
  });

  it('scales the simulation shares to proportions and leaves empty factors uniform', () => {
    expect(toDistributions({ site: { S1: 30, S2: 10 }, age: { Y: null, O: undefined } })).toEqual({
      site: { S1: 0.75, S2: 0.25 },
    });
    expect(toDistributions({})).toBeUndefined();
    expect(toDistributions(undefined)).toBeUndefined();
  });
});
