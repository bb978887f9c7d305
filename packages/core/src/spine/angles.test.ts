import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { measureAngle, pelvicMismatch, svaOffset, type SpineFacing } from './angles.js';
import { diagnose } from './diagnosis.js';
import { SPINE_MSG, referenceScale, type SpineLine, type SpineMeasure } from './measure.js';

/**
 * Hand-built films: points are placed in the patient's frame (a anterior, u superior, in pixels from the canvas
 * centre) and drawn onto the 500 × 800 canvas facing right (anterior = +x) or left (anterior = −x).
 */
interface P {
  a: number;
  u: number;
}
const toCanvas = (p: P, facing: SpineFacing) => ({ x: 250 + (facing === 'left' ? -p.a : p.a), y: 400 - p.u });
const seg = (p: P, q: P, facing: SpineFacing = 'right'): SpineLine => ({
  start: toCanvas(p, facing),
  end: toCanvas(q, facing),
});
const rad = (deg: number) => (deg * Math.PI) / 180;
/** An endplate-like line through c, `slope` degrees above the horizontal at its anterior end, `len` long. */
const tilted = (c: P, slope: number, len = 120): [P, P] => {
  const [da, du] = [(Math.cos(rad(slope)) * len) / 2, (Math.sin(rad(slope)) * len) / 2];
  return [
    { a: c.a - da, u: c.u - du },
    { a: c.a + da, u: c.u + du },
  ];
};
/** A wall-like line through c leaning `lean` degrees from the vertical, its upper end posterior when positive. */
const leaning = (c: P, lean: number, len = 120): [P, P] => {
  const [da, du] = [(-Math.sin(rad(lean)) * len) / 2, (Math.cos(rad(lean)) * len) / 2];
  return [
    { a: c.a - da, u: c.u - du },
    { a: c.a + da, u: c.u + du },
  ];
};
const line = ([p, q]: [P, P], facing: SpineFacing = 'right') => seg(p, q, facing);
const reversed = (l: SpineLine): SpineLine => ({ start: l.end, end: l.start });

const degrees = (measure: SpineMeasure, lines: SpineLine[], facing: SpineFacing = 'right') => {
  const r = measureAngle(measure, lines, facing);
  if (!r.ok) throw new Error(`${measure}: ${r.reason}`);
  return r.degrees;
};

/** Every way of drawing the same two lines: either order, each line either way round. */
const drawings = (l1: SpineLine, l2: SpineLine): SpineLine[][] =>
  [
    [l1, l2],
    [l2, l1],
  ].flatMap(([x, y]) => [
    [x!, y!],
    [reversed(x!), y!],
    [x!, reversed(y!)],
    [reversed(x!), reversed(y!)],
  ]);

/** The measure on its film facing right and mirrored facing left, drawn every way: one value. */
const onFilm = (measure: SpineMeasure, l1: [P, P], l2: [P, P]) => {
  const values = new Set<number>();
  for (const facing of ['right', 'left'] as const) {
    for (const lines of drawings(line(l1, facing), line(l2, facing))) values.add(degrees(measure, lines, facing));
  }
  expect([...values], `${measure} drawn every way`).toHaveLength(1);
  return [...values][0]!;
};

describe('sagittal angles, signed (docs/spine-tools.md conventions)', () => {
  it('TK: kyphosis positive, past 90° (a TK of 130° is 130°, not 50°), lordosis negative', () => {
    expect(onFilm('TK', tilted({ a: 0, u: 300 }, -65), tilted({ a: 0, u: -100 }, 65))).toBe(130);
    expect(onFilm('TK', tilted({ a: 0, u: 300 }, -20), tilted({ a: 0, u: -100 }, 20))).toBe(40);
    const lordotic = onFilm('TK', tilted({ a: 0, u: 300 }, 5), tilted({ a: 0, u: -100 }, -5));
    expect(lordotic).toBe(-10);
    expect(diagnose('TK', lordotic)?.diagnosis).toBe('胸椎后凸不足');
  });

  it('LL and CL: lordosis positive; a cervical kyphosis of −25° is 颈椎前凸中度减小, not 颈椎前凸正常', () => {
    expect(onFilm('LL', tilted({ a: 0, u: 200 }, 10), tilted({ a: 0, u: -150 }, -45))).toBe(55);
    const cl = onFilm('CL', tilted({ a: 0, u: 250 }, -15), tilted({ a: 0, u: -150 }, 10));
    expect(cl).toBe(-25);
    expect(diagnose('CL', cl)?.diagnosis).toBe('颈椎前凸中度减小');
    expect(onFilm('CL', tilted({ a: 0, u: 250 }, 20), tilted({ a: 0, u: -150 }, -10))).toBe(30);
  });

  it('LS (Boxall slip angle): a normal lordotic −15° is 滑脱角正常; a rolled-over L5 is kyphotic and positive', () => {
    // L5's inferior endplate 25° down anteriorly; S1's posterior wall (behind it) leaning forward 40°.
    const normal = onFilm('LS', tilted({ a: 0, u: 60 }, -25), leaning({ a: -60, u: 0 }, -40));
    expect(normal).toBe(-15);
    expect(diagnose('LS', normal)?.diagnosis).toBe('滑脱角正常');
    // High grade: L5 slid forward and down, its endplate 70° down anteriorly; a vertical sacrum (wall lean −20°).
    const slipped = onFilm('LS', tilted({ a: 50, u: -40 }, -70), leaning({ a: -60, u: 0 }, -20));
    expect(slipped).toBe(50);
    expect(diagnose('LS', slipped)?.diagnosis).toBe('滑脱角增大，有滑脱进展风险');
  });

  it('LCA (coronal Cobb): unsigned, past 90° (145° advises surgery, not a brace)', () => {
    const lca = onFilm('LCA', tilted({ a: 0, u: 300 }, 72.5), tilted({ a: 0, u: -200 }, -72.5));
    expect(lca).toBe(145);
    expect(diagnose('LCA', lca)?.diagnosis).toBe('脊柱侧凸，建议考虑手术治疗');
    expect(onFilm('LCA', tilted({ a: 0, u: 300 }, -12), tilted({ a: 0, u: -200 }, 20))).toBe(32);
  });

  it('SS: positive when the S1 endplate is lower anteriorly; a forward-rising endplate is negative', () => {
    const horizontal = tilted({ a: 0, u: -250 }, 0, 300);
    expect(onFilm('SS', tilted({ a: 0, u: 0 }, -40), horizontal)).toBe(40);
    expect(onFilm('SS', tilted({ a: 0, u: 0 }, 6), horizontal)).toBe(-6);
    // Read against the horizontal line as drawn: a film scanned 3° askew reads the same.
    expect(onFilm('SS', tilted({ a: 0, u: 0 }, -37), tilted({ a: 0, u: -250 }, 3, 300))).toBe(40);
  });

  it('PT: positive when the femoral heads lie anterior of the endplate midpoint; −8° is −8°', () => {
    const vertical = leaning({ a: 150, u: 0 }, 0, 400);
    expect(
      onFilm(
        'PT',
        [
          { a: 0, u: 0 },
          { a: 60, u: -200 },
        ],
        vertical,
      ),
    ).toBe(17);
    expect(onFilm('PT', leaning({ a: 0, u: -100 }, -8, 200), vertical)).toBe(-8);
  });

  it('PI: 0–180°, a PI of 95° reads 95°, not 85°', () => {
    // SS 50°, PT 45°: the endplate's perpendicular at its midpoint M and the line from M to the hip axis.
    const m = { a: 0, u: 0 };
    const hip = { a: Math.sin(rad(45)) * 200, u: -Math.cos(rad(45)) * 200 };
    expect(onFilm('PI', leaning(m, -50, 200), [m, hip])).toBe(95);
  });

  it('SPM-08: a missing line gives nothing, a line without length 无法计算角度; parallel lines are 0°', () => {
    const a = line(tilted({ a: 0, u: 100 }, 10));
    expect(measureAngle('TK', [a])).toEqual({ ok: false, reason: 'incomplete', message: null });
    const dot = { start: { x: 5, y: 5 }, end: { x: 5, y: 5 } };
    expect(measureAngle('TK', [a, dot])).toEqual({
      ok: false,
      reason: 'degenerate',
      message: SPINE_MSG.angleNotComputable,
    });
    const nan = { start: { x: 0, y: 0 }, end: { x: Number.NaN, y: 1 } };
    expect(measureAngle('LL', [nan, a])).toMatchObject({ ok: false, reason: 'degenerate' });
    expect(measureAngle('TK', [a, line(tilted({ a: 0, u: -100 }, 10))])).toEqual({ ok: true, angle: 0, degrees: 0 });
    expect(measureAngle('SVA', [a, a])).toMatchObject({ ok: false, reason: 'incomplete' });
  });
});

describe('SVA: the signed horizontal offset of the C7 plumb line from the posterosuperior corner of S1', () => {
  const reference = { start: { x: 50, y: 750 }, end: { x: 150, y: 750 } }; // 100 px = 10 cm
  const scale = referenceScale(reference, 10);

  it('a C7 plumb line 3 cm behind the corner is −3 cm on a film facing either way, drawn either way round', () => {
    for (const facing of ['right', 'left'] as const) {
      const l = seg({ a: -30, u: 300 }, { a: 0, u: -200 }, facing);
      expect(svaOffset(l, facing) * scale).toBeCloseTo(-3, 12);
      expect(svaOffset(reversed(l), facing) * scale).toBeCloseTo(-3, 12);
    }
  });

  it('a true 4 cm drawn at 30° from the horizontal is 4 cm, not its 4.62 cm length', () => {
    const l = seg({ a: 40, u: 0 }, { a: 0, u: -40 * Math.tan(rad(30)) });
    expect(svaOffset(l) * scale).toBeCloseTo(4, 12);
    expect(Math.hypot(l.end.x - l.start.x, l.end.y - l.start.y) * scale).toBeCloseTo(4.62, 2);
  });
});

/** A real number in [min, max] to a thousandth (fast-check's doubles crowd at their bounds and at 0). */
const real = (min: number, max: number) => fc.integer({ min: min * 1000, max: max * 1000 }).map((v) => v / 1000);

describe('PI = PT + SS', () => {
  it('property: over random pelvises, either facing, lines drawn either way round and in either order', () => {
    fc.assert(
      fc.property(
        fc.record({
          ss: real(-10, 75),
          pt: real(-30, 60),
          plate: real(40, 160),
          hipDistance: real(80, 300),
          m: fc.record({ a: real(-80, 80), u: real(-50, 150) }),
          facing: fc.constantFrom<SpineFacing>('right', 'left'),
          flips: fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }),
          swaps: fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
        }),
        ({ ss, pt, plate, hipDistance, m, facing, flips, swaps }) => {
          fc.pre(pt + ss > 0.5 && Math.abs(ss) > 0.5 && Math.abs(pt) > 0.5);
          // The endplate through M, `ss` down anteriorly; the hip axis `pt` anterior of the vertical below M.
          const hip = { a: m.a + Math.sin(rad(pt)) * hipDistance, u: m.u - Math.cos(rad(pt)) * hipDistance };
          const draw = (pts: [P, P], i: number) => {
            const l = seg(pts[0], pts[1], facing);
            return flips[i] ? reversed(l) : l;
          };
          const pair = (x: SpineLine, y: SpineLine, swap: boolean | undefined) => (swap ? [y, x] : [x, y]);
          const plateLine = draw(tilted(m, -ss, plate), 0);
          const horizontal = draw(tilted({ a: m.a, u: m.u + 200 }, 0, 300), 1);
          const axis = (i: number) => draw([m, hip], i);
          const vertical = draw(leaning({ a: m.a + 200, u: m.u }, 0, 300), 3);
          const perpendicular = draw(leaning(m, -ss, 150), 4);
          const angle = (measure: SpineMeasure, lines: SpineLine[]) => {
            const r = measureAngle(measure, lines, facing);
            if (!r.ok) throw new Error(r.reason);
            return r.angle;
          };
          const SS = angle('SS', pair(plateLine, horizontal, swaps[0]));
          const PT = angle('PT', pair(axis(2), vertical, swaps[1]));
          const PI = angle('PI', pair(perpendicular, axis(5), swaps[2]));
          expect(SS).toBeCloseTo(ss, 9);
          expect(PT).toBeCloseTo(pt, 9);
          expect(PI).toBeCloseTo(PT + SS, 9);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('a PT of −8° and an SS of 50° give a PI of 42° (the acute reading gave PT 8°, PT + SS 16° off)', () => {
    const m = { a: 0, u: 0 };
    const hip = { a: Math.sin(rad(-8)) * 200, u: -Math.cos(rad(-8)) * 200 };
    const pt = onFilm('PT', [m, hip], leaning({ a: 150, u: 0 }, 0, 400));
    const ss = onFilm('SS', tilted(m, -50), tilted({ a: 0, u: 250 }, 0, 300));
    const pi = onFilm('PI', leaning(m, -50, 200), [m, hip]);
    expect([pt, ss, pi]).toEqual([-8, 50, 42]);
  });

  it('PI−LL from the integers shown; null unless both are measured', () => {
    expect(pelvicMismatch(62, 45)).toBe(17);
    expect(pelvicMismatch(45, 62)).toBe(-17);
    expect(pelvicMismatch(null, 45)).toBeNull();
    expect(pelvicMismatch(50, Number.NaN)).toBeNull();
  });
});

describe('property: a sagittal angle does not depend on how it was drawn', () => {
  it('TK, LL, CL, LS, LCA: the film mirrored with its facing, either order, either direction give one value', () => {
    fc.assert(
      fc.property(
        fc.constantFrom<SpineMeasure>('TK', 'LL', 'CL', 'LS', 'LCA'),
        real(-85, 85),
        real(-85, 85),
        (measure, s1, s2) => {
          fc.pre(Math.abs(s1 - s2) > 0.01);
          const upper = tilted({ a: 40, u: 250 }, s1);
          const lower = tilted({ a: 40, u: -150 }, s2);
          const lines: [[P, P], [P, P]] =
            measure === 'LS' ? [tilted({ a: 40, u: 60 }, s1), leaning({ a: -80, u: 0 }, s2)] : [upper, lower];
          const value = onFilm(measure, ...lines);
          const expected =
            measure === 'TK' ? s2 - s1 : measure === 'LS' ? s2 - s1 : measure === 'LCA' ? Math.abs(s1 - s2) : s1 - s2;
          expect(Math.abs(value - expected)).toBeLessThanOrEqual(0.5 + 1e-9);
        },
      ),
      { numRuns: 300 },
    );
  });
});
