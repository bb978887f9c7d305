import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { generateBlockList, parseUploadedList, simpleAssign } from './allocation.js';
import { ratioSum } from './config.js';
import { createRng } from './rng.js';
import { allStrata } from './strata.js';
import { SEED, SEX, SITE, armsFor, config } from './test-fixtures.js';

/** Ratios 1..4 for 2..4 arms, and 1..3 distinct block sizes that are multiples of their sum. */
const designArb = fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 2, maxLength: 4 }).chain((ratios) => {
  const sum = ratios.reduce((s, r) => s + r, 0);
  const maxMultiple = Math.max(1, Math.floor(60 / sum));
  return fc.record({
    ratios: fc.constant(ratios),
    blockSizes: fc
      .uniqueArray(fc.integer({ min: 1, max: Math.min(4, maxMultiple) }), { minLength: 1, maxLength: 3 })
      .map((ms) => ms.map((m) => m * sum)),
    seed: fc.string({ minLength: 1, maxLength: 32 }),
    length: fc.integer({ min: 1, max: 120 }),
  });
});

function countArms(arms: string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const a of arms) out[a] = (out[a] ?? 0) + 1;
  return out;
}

describe('RAND-02: permuted blocks', () => {
  it('every complete block holds each arm exactly ratio · size / Σratio times, for any ratio and block sizes', () => {
    fc.assert(
      fc.property(designArb, ({ ratios, blockSizes, seed, length }) => {
        const c = config({ arms: armsFor(ratios), blockSizes });
        const list = generateBlockList(c, seed, '', length);
        expect(list).toHaveLength(length);
        expect(list.map((s) => s.slot)).toEqual(Array.from({ length }, (_, i) => i + 1));
        const sum = ratioSum(c);
        // Cumulative balance holds at every block end: the list restores the ratio exactly there.
        let start = 0;
        while (start < list.length) {
          const { block, blockSize } = list[start]!;
          expect(blockSizes).toContain(blockSize);
          const members = list.slice(start, start + blockSize);
          expect(members.every((s) => s.block === block && s.blockSize === blockSize)).toBe(true);
          if (members.length === blockSize) {
            const counts = countArms(members.map((s) => s.arm));
            for (const a of c.arms) expect(counts[a.code] ?? 0).toBe((a.ratio * blockSize) / sum);
            const upTo = countArms(list.slice(0, start + blockSize).map((s) => s.arm));
            for (const a of c.arms) expect((upTo[a.code] ?? 0) * sum).toBe(a.ratio * (start + blockSize));
          }
          start += blockSize;
        }
      }),
      { numRuns: 150 },
    );
  });

  it('the same seed and stratum give the same list, and a longer list extends a shorter one', () => {
    fc.assert(
      fc.property(designArb, fc.integer({ min: 1, max: 60 }), ({ ratios, blockSizes, seed, length }, extra) => {
        const c = config({ arms: armsFor(ratios), blockSizes });
        const list = generateBlockList(c, seed, 'site=S1', length);
        expect(generateBlockList(c, seed, 'site=S1', length)).toEqual(list);
        expect(generateBlockList(c, seed, 'site=S1', length + extra).slice(0, length)).toEqual(list);
      }),
      { numRuns: 60 },
    );
  });

  it('different strata (and different seeds) get different sequences', () => {
    const c = config({ method: 'stratified_block', blockSizes: [4, 6], factors: [SITE, SEX] });
    const lists = allStrata(c).map((s) =>
      generateBlockList(c, SEED, s.key, 60)
        .map((x) => x.arm)
        .join(''),
    );
    expect(new Set(lists).size).toBe(lists.length);
    const other = generateBlockList(c, 'ffeeddccbbaa99887766554433221100', 'site=S1|sex=M', 60);
    expect(other.map((x) => x.arm).join('')).not.toBe(lists[0]);
  });

  it('stratified lists balance within each stratum, however patients spread over strata', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1 }),
        fc.array(fc.integer({ min: 0, max: 5 }), { minLength: 1, maxLength: 300 }),
        (seed, arrivals) => {
          const c = config({ method: 'stratified_block', blockSizes: [2, 4, 6], factors: [SITE, SEX] });
          const strata = allStrata(c);
          const lists = strata.map((s) => generateBlockList(c, seed, s.key, 300));
          const used = strata.map(() => 0);
          const perStratum = strata.map(() => ({ A: 0, B: 0 }));
          for (const i of arrivals) {
            const slot = lists[i]![used[i]!]!;
            used[i]!++;
            perStratum[i]![slot.arm as 'A' | 'B']++;
            // Within a stratum, 1:1 with blocks up to 6 never drifts more than 3 apart.
            expect(Math.abs(perStratum[i]!.A - perStratum[i]!.B)).toBeLessThanOrEqual(3);
            // At a block end the stratum is exactly balanced.
            if (used[i] === lists[i]!.findIndex((s) => s.block === slot.block + 1)) {
              expect(perStratum[i]!.A).toBe(perStratum[i]!.B);
            }
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it('pins one list so a change to the algorithm cannot go unnoticed', () => {
    const c = config({ blockSizes: [4, 6] });
    const list = generateBlockList(c, SEED, '', 20);
    expect(list.map((s) => s.arm).join('')).toBe(PINNED_LIST);
    expect(list.map((s) => s.blockSize).join(',')).toBe(PINNED_SIZES);
  });
});

describe('RAND-02: simple randomization', () => {
  it('approximates the ratio (2:1:1, 40 000 draws, within 4 standard errors)', () => {
    const c = config({ method: 'simple', arms: armsFor([2, 1, 1]), blockSizes: [] });
    const rng = createRng(SEED);
    const n = 40000;
    const counts = countArms(Array.from({ length: n }, () => simpleAssign(c, rng)));
    for (const [arm, share] of [
      ['A', 0.5],
      ['B', 0.25],
      ['C', 0.25],
    ] as const) {
      const se = Math.sqrt((share * (1 - share)) / n);
      expect(Math.abs((counts[arm] ?? 0) / n - share)).toBeLessThan(4 * se);
    }
  });
});

describe('RAND-02: uploaded allocation tables', () => {
  const stratified = config({ method: 'stratified_block', blockSizes: [4], factors: [SITE, SEX] });

  it('orders each stratum by slot, whatever the row order, so it is used in order', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('A', 'B'), { minLength: 1, maxLength: 40 }),
        fc.integer(),
        (arms, shuffleSeed) => {
          const rows = arms.map((arm, i) => `site=S2|sex=F,${i + 1},${arm}`);
          const rng = createRng(String(shuffleSeed));
          for (let i = rows.length - 1; i > 0; i--) {
            const j = rng.nextInt(i + 1);
            [rows[i], rows[j]] = [rows[j]!, rows[i]!];
          }
          const r = parseUploadedList(['stratum,slot,arm', ...rows].join('\n'), stratified);
          expect(r.ok).toBe(true);
          if (r.ok) expect(r.lists['site=S2|sex=F']!.map((s) => s.arm)).toEqual(arms);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('reads factor columns and Chinese headers, with a BOM', () => {
    const csv = '\uFEFFsite,sex,序号,分组,区组,区组长度\nS1,M,1,B,1,2\nS1,M,2,A,1,2\nS3,F,1,A,1,2\n';
    const r = parseUploadedList(csv, stratified);
    expect(r).toEqual({
      ok: true,
      lists: {
        'site=S1|sex=M': [
          { slot: 1, block: 1, blockSize: 2, arm: 'B' },
          { slot: 2, block: 1, blockSize: 2, arm: 'A' },
        ],
        'site=S3|sex=F': [{ slot: 1, block: 1, blockSize: 2, arm: 'A' }],
      },
    });
  });

  it('gives Chinese errors by line', () => {
    const csv = [
      'stratum,slot,arm',
      'site=S1|sex=M,1,A',
      'site=S1|sex=X,2,A',
      'site=S1|sex=M,x,A',
      'site=S1|sex=M,1,B',
      'site=S1|sex=M,3,C',
      'site=S1|sex=M,4,A',
    ].join('\n');
    const r = parseUploadedList(csv, stratified);
    expect(r).toEqual({
      ok: false,
      errors: [
        '第 3 行：因素“性别”的水平无效：X',
        '第 4 行：序号必须是正整数',
        '第 5 行：序号 1 与第 2 行重复',
        '第 6 行：分组“C”不存在',
        '分层“site=S1|sex=M”的序号不连续：缺少序号 2',
      ],
    });
    expect(parseUploadedList('arm\nA', config())).toEqual({ ok: false, errors: ['第 1 行：缺少列 slot（序号）'] });
    expect(parseUploadedList('slot,arm\n1,A', stratified)).toEqual({
      ok: false,
      errors: ['第 1 行：缺少分层因素列 site（中心）', '第 1 行：缺少分层因素列 sex（性别）'],
    });
  });

  it('an unstratified upload is the one list ""', () => {
    const r = parseUploadedList('slot,arm\n2,B\n1,A\n', config());
    expect(r.ok && r.lists['']!.map((s) => s.arm)).toEqual(['A', 'B']);
  });
});

// Blocks: BAAB | AABABB | ABABAB | ABAB (sizes 4, 6, 6, 4).
const PINNED_LIST = 'BAABAABABBABABABABAB';
const PINNED_SIZES = '4,4,4,4,6,6,6,6,6,6,6,6,6,6,6,6,4,4,4,4';
