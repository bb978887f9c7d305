import { describe, expect, it } from 'vitest';
import { allStrata, parseStratumKey, resolveFactorLevel, stratumKey } from './strata.js';
import { AGE, SEX, SITE, config } from './test-fixtures.js';
import { randomizationFactorSchema } from './config.js';

const age = randomizationFactorSchema.parse(AGE);
const sex = randomizationFactorSchema.parse(SEX);
const site = randomizationFactorSchema.parse(SITE);

describe('strata', () => {
  it.each([
    [sex, '1', 'M'],
    [sex, '2', 'F'],
    [sex, '3', null],
    [sex, null, null],
    [sex, '', null],
    [site, 12, 'S2'],
    [age, 64.9, 'Y'],
    [age, 65, 'O'],
    [age, '70', 'O'],
    [age, 'abc', null],
  ] as const)('%#: level of %j', (factor, value, level) => {
    expect(resolveFactorLevel(factor, value)).toBe(level);
  });

  it('keys strata by factor order and lists the cartesian product', () => {
    const c = config({ method: 'stratified_block', factors: [SITE, SEX] });
    expect(stratumKey(c, { sex: 'F', site: 'S3' })).toBe('site=S3|sex=F');
    expect(parseStratumKey('site=S3|sex=F')).toEqual({ site: 'S3', sex: 'F' });
    const all = allStrata(c);
    expect(all).toHaveLength(6);
    expect(all[0]).toEqual({ key: 'site=S1|sex=M', levels: { site: 'S1', sex: 'M' }, label: '北京中心 / 男' });
    expect(() => stratumKey(c, { site: 'S1' })).toThrow('因素“性别”的水平无效：未填写');
  });

  it('unstratified methods have the one stratum ""', () => {
    expect(stratumKey(config(), {})).toBe('');
    expect(allStrata(config())).toEqual([{ key: '', levels: {}, label: '全部' }]);
    // Minimization balances margins, so its factors do not make strata.
    const m = config({ method: 'minimization', factors: [SEX], minimization: { imbalance: 'range', p: 0.8 } });
    expect(stratumKey(m, { sex: 'M' })).toBe('');
  });
});
