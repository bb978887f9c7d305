import { describe, expect, it } from 'vitest';
import { cobbAngles } from './cobb.js';
import { spineAutoResultSchema, spineManualDataSchema, toSpineAutoResult } from './schema.js';

const seg = (x1: number, y1: number, x2: number, y2: number) => ({ start: { x: x1, y: y1 }, end: { x: x2, y: y2 } });

/** 17 level vertebrae tilting 2° more each, normalised to a 1084 × 2437 film. */
function landmarks(): number[] {
  const xs: number[] = [];
  const ys: number[] = [];
  for (let k = 0; k < 17; k += 1) {
    const t = (2 * k * Math.PI) / 180;
    const [cx, cy] = [500 + 100 * Math.sin(k / 5), 200 + 120 * k];
    for (const [dx, dy] of [
      [-60, -40],
      [60, -40],
      [-60, 40],
      [60, 40],
    ] as const) {
      xs.push((cx + Math.cos(t) * dx - Math.sin(t) * dy) / 1084);
      ys.push((cy + Math.sin(t) * dx + Math.cos(t) * dy) / 2437);
    }
  }
  return [...xs, ...ys];
}

describe('automatic result value', () => {
  it('SPA-04, SPA-05: curve_type, angles pt/mt/tl {angle, idxs}, midpoint_lines, detections, landmarks, imgURL', () => {
    const lm = landmarks();
    const value = toSpineAutoResult(cobbAngles(lm, 1084, 2437), {
      landmarks: lm,
      detections: [{ xmin: 1, ymin: 2, xmax: 30, ymax: 40, confidence: 0.93 }],
      imgURL: '/files/abc.png',
    });
    const parsed = spineAutoResultSchema.parse(JSON.parse(JSON.stringify(value)));
    expect(Object.keys(parsed).sort()).toEqual(
      ['angles', 'curve_type', 'detections', 'imgURL', 'landmarks', 'midpoint_lines'].sort(),
    );
    expect(parsed.angles.pt.angle).toBeCloseTo(32, 5);
    expect(parsed.angles.pt.idxs).toEqual([0, 16]);
    expect(parsed.landmarks).toHaveLength(136);
    expect(parsed.midpoint_lines).toHaveLength(17);
  });

  it('rejects a broken landmark list, an unknown curve type, a confidence over 1', () => {
    const lm = landmarks();
    const ok = toSpineAutoResult(cobbAngles(lm, 1084, 2437), { landmarks: lm, imgURL: 'x' });
    expect(spineAutoResultSchema.safeParse({ ...ok, landmarks: lm.slice(1) }).success).toBe(false);
    expect(spineAutoResultSchema.safeParse({ ...ok, curve_type: 'Z' }).success).toBe(false);
    expect(
      spineAutoResultSchema.safeParse({
        ...ok,
        detections: [{ xmin: 0, ymin: 0, xmax: 1, ymax: 1, confidence: 1.5 }],
      }).success,
    ).toBe(false);
  });

  it('an angle that could not be computed is stored as null (NaN has no JSON)', () => {
    const lm = landmarks().map(() => Number.NaN);
    const value = toSpineAutoResult(cobbAngles(lm, 1084, 2437, { units: 'pixels' }), { landmarks: [], imgURL: 'x' });
    expect(value.angles.pt.angle).toBeNull();
    expect(value.curve_type).toBe('S');
  });
});

describe('manual measurement value', () => {
  it('SPM-02: imgUrl and per measure lines, referenceLine, referenceLength, unit, scale, angle, diagnosis, symptom, medicalAdvice', () => {
    const parsed = spineManualDataSchema.parse({
      imgUrl: '/files/film.png',
      TK: { lines: [seg(0, 0, 100, 0), seg(0, 0, 100, 50)], angle: 27, diagnosis: '胸椎后凸正常' },
      SVA: {
        referenceLine: seg(0, 0, 0, 100),
        referenceLength: 10,
        unit: 'cm',
        scale: 0.1,
        lines: [{ ...seg(0, 0, 70, 0), linelength: 7 }],
        diagnosis: '矢状面中度失衡',
      },
      ISH: {
        lines: ['a', 'b', 'c', 'd'].map((lineCode) => ({ ...seg(0, 0, 10, 10), lineCode, handles: [{ x: 0, y: 0 }] })),
        symptom: '…',
        medicalAdvice: '…',
      },
    });
    expect(parsed.TK).toEqual({
      lines: [
        { ...seg(0, 0, 100, 0), handles: [], lineCode: null, linelength: null },
        { ...seg(0, 0, 100, 50), handles: [], lineCode: null, linelength: null },
      ],
      referenceLine: null,
      referenceLength: null,
      unit: 'none',
      scale: 1,
      angle: 27,
      diagnosis: '胸椎后凸正常',
      symptom: '',
      medicalAdvice: '',
    });
    expect(parsed.SVA?.lines[0]?.linelength).toBe(7);
    expect(parsed.LL).toBeUndefined();
  });

  it('SPM-03, SPM-07, SPM-12: codes only on ISH and CVH and not repeated, at most 2 lines on an angle tool, the five units', () => {
    const bad = (data: object) => spineManualDataSchema.safeParse({ imgUrl: 'x', ...data }).success;
    expect(
      bad({
        ISH: {
          lines: [
            { ...seg(0, 0, 1, 1), lineCode: 'a' },
            { ...seg(0, 0, 1, 1), lineCode: 'a' },
          ],
        },
      }),
    ).toBe(false);
    expect(bad({ CVH: { lines: [seg(0, 0, 1, 1)] } })).toBe(false);
    expect(bad({ TK: { lines: [{ ...seg(0, 0, 1, 1), lineCode: 'a' }] } })).toBe(false);
    expect(bad({ TK: { lines: [seg(0, 0, 1, 1), seg(0, 0, 1, 2), seg(0, 0, 1, 3)] } })).toBe(false);
    expect(bad({ SVA: { unit: 'ft' } })).toBe(false);
    for (const unit of ['none', 'mm', 'cm', 'm', 'in']) expect(bad({ SVA: { unit } })).toBe(true);
    expect(bad({ SVA: { scale: 0 } })).toBe(false);
  });
});
