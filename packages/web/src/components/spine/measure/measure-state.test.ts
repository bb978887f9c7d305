import { describe, expect, it } from 'vitest';
import { spineManualDataSchema } from '@ecrf/core';
import {
  addLine,
  checkStartLine,
  clampPoint,
  clearMeasure,
  deleteLine,
  fitImage,
  measureOf,
  moveHandle,
  newDocument,
  readDocument,
  recompute,
  setFacing,
  setReferenceLength,
  setReferenceLine,
  setUnit,
  writeDocument,
  type MeasureDocument,
} from './measure-state';

const p = (x: number, y: number) => ({ x, y });
const blank: MeasureDocument = newDocument('img-key');

describe('manual measurement state', () => {
  it('SPM-06: two clicks make one line with both handles; TK from two lines is an integer angle with its diagnosis', () => {
    let doc = addLine(blank, 'TK', p(100, 100), p(300, 100));
    expect(measureOf(doc, 'TK').lines[0]).toMatchObject({ start: p(100, 100), end: p(300, 100) });
    expect(measureOf(doc, 'TK').lines[0]!.handles).toEqual([p(100, 100), p(300, 100)]);
    expect(measureOf(doc, 'TK').angle).toBeNull();
    // tan(30.2°) × 200 ≈ 116.4: the second line rises 116 over 200 → 30.11°, shown 30.
    doc = addLine(doc, 'TK', p(100, 400), p(300, 284));
    expect(measureOf(doc, 'TK').angle).toBe(30);
    expect(measureOf(doc, 'TK').diagnosis).toBe('胸椎后凸正常');
  });

  it('SPM-07: a third line on an angle tool is refused with 线段条数已达上限', () => {
    let doc = addLine(blank, 'LL', p(0, 0), p(10, 0));
    doc = addLine(doc, 'LL', p(0, 0), p(10, 10));
    expect(checkStartLine(doc, 'LL')).toEqual({ ok: false, reason: 'limit', message: '线段条数已达上限' });
    expect(addLine(doc, 'LL', p(1, 1), p(5, 9))).toBe(doc);
  });

  it('SPM-08: a line without length gives 无法计算角度 and no diagnosis; parallel lines are 0°', () => {
    let doc = addLine(blank, 'SS', p(0, 0), p(100, 0));
    const flat = addLine(doc, 'SS', p(0, 50), p(100, 50));
    expect(measureOf(flat, 'SS')).toMatchObject({ angle: 0, diagnosis: '骶骨倾斜角重度减小' });
    doc = {
      ...doc,
      measures: {
        SS: { ...measureOf(doc, 'SS'), lines: [...measureOf(doc, 'SS').lines, measureOf(doc, 'SS').lines[0]!] },
      },
    };
    doc = moveHandle(doc, 'SS', 1, 1, p(0, 0));
    const r = recompute(doc, 'SS');
    expect(r.angleMessage).toBe('无法计算角度');
    expect(r.data.angle).toBeNull();
    expect(r.data.diagnosis).toBe('');
  });

  it('SPM-09, SPM-10, SPM-11, SPM-12: SVA needs the reference line first, whose real length sets the scale; the unit converts to cm for the band', () => {
    expect(checkStartLine(blank, 'SVA')).toMatchObject({ ok: false, message: '请先绘制参考线' });
    let doc = setReferenceLine(blank, 'SVA', p(10, 10), p(110, 10));
    expect(setReferenceLine(doc, 'SVA', p(0, 0), p(5, 5))).toBe(doc);
    // C7 (the higher end) 300 px anterior of the S1 corner, the line 424.26 px long.
    doc = addLine(doc, 'SVA', p(450, 100), p(150, 400));
    expect(measureOf(doc, 'SVA').scale).toBe(1);
    expect(measureOf(doc, 'SVA').lines[0]!.linelength).toBe(424.26);
    expect(recompute(doc, 'SVA').sva).toBe(300);
    doc = setReferenceLength(doc, 'SVA', 20);
    doc = setUnit(doc, 'SVA', 'mm');
    expect(measureOf(doc, 'SVA').scale).toBeCloseTo(0.2, 10);
    expect(measureOf(doc, 'SVA').lines[0]!.linelength).toBe(84.85);
    expect(recompute(doc, 'SVA').sva).toBe(60);
    expect(measureOf(doc, 'SVA').diagnosis).toBe('矢状面中度失衡');
    doc = setUnit(doc, 'SVA', 'cm');
    expect(measureOf(doc, 'SVA').diagnosis).toBe('矢状面重度失衡');
    doc = setReferenceLength(doc, 'SVA', -3);
    expect(measureOf(doc, 'SVA').scale).toBe(1);
  });

  it('SPM-03, SPM-22, SPM-23: ISH lines are coded a–d, the ratio gives the grade with symptom and advice', () => {
    let doc = setReferenceLine(blank, 'ISH', p(0, 0), p(10, 0));
    for (const len of [10, 10, 10, 100]) doc = addLine(doc, 'ISH', p(0, 0), p(len, 0));
    const ish = measureOf(doc, 'ISH');
    expect(ish.lines.map((l) => l.lineCode)).toEqual(['a', 'b', 'c', 'd']);
    expect(recompute(doc, 'ISH').ratio).toBe(0.1);
    expect(ish.diagnosis).toContain('Ⅰ');
    expect(ish.symptom).not.toBe('');
    expect(ish.medicalAdvice).not.toBe('');
  });

  it('SPM-13: a line deleted, a handle dragged, the tool cleared; the angle follows', () => {
    let doc = addLine(blank, 'CL', p(0, 0), p(100, 0));
    doc = addLine(doc, 'CL', p(0, 0), p(100, 100));
    expect(measureOf(doc, 'CL').angle).toBe(45);
    doc = moveHandle(doc, 'CL', 1, 1, p(100, 36));
    expect(measureOf(doc, 'CL').lines[1]!.handles[1]).toEqual(p(100, 36));
    expect(measureOf(doc, 'CL').angle).toBe(20);
    expect(measureOf(doc, 'CL').diagnosis).toBe(recompute(doc, 'CL').data.diagnosis);
    doc = deleteLine(doc, 'CL', 0);
    expect(measureOf(doc, 'CL').lines).toHaveLength(1);
    expect(measureOf(doc, 'CL').angle).toBeNull();
    doc = clearMeasure(doc, 'CL');
    expect(doc.measures.CL).toBeUndefined();
  });

  it('SPM-02: the written value passes the core schema and reads back the same', () => {
    let doc = addLine(blank, 'TK', p(100, 100), p(300, 100));
    doc = addLine(doc, 'TK', p(100, 400), p(300, 284));
    doc = setReferenceLine(doc, 'SVA', p(10, 10), p(110, 10));
    const text = writeDocument(doc);
    const parsed = spineManualDataSchema.parse(JSON.parse(text));
    expect(Object.keys(parsed).sort()).toEqual(['SVA', 'TK', 'facing', 'imgUrl']);
    expect(readDocument(text)).toEqual(doc);
    expect(readDocument('')).toBeNull();
  });

  it('SPM-05: points stay on the 500 × 800 canvas and the image is fitted into it', () => {
    expect(clampPoint(p(-5, 900.4), 500, 800)).toEqual(p(0, 800));
    expect(fitImage({ width: 1000, height: 1000 }, { width: 500, height: 800 })).toEqual({
      x: 0,
      y: 150,
      width: 500,
      height: 500,
    });
  });

  it('the film facing left: the same spine mirrored reads the same; the toggle turns every sagittal sign', () => {
    const mirror = (q: { x: number; y: number }) => p(500 - q.x, q.y);
    const draw = (doc: MeasureDocument, m: (q: { x: number; y: number }) => { x: number; y: number }) => {
      let d = addLine(doc, 'TK', m(p(100, 100)), m(p(300, 100)));
      d = addLine(d, 'TK', m(p(100, 400)), m(p(300, 284)));
      d = setReferenceLine(d, 'SVA', m(p(10, 700)), m(p(110, 700)));
      d = setReferenceLength(setUnit(d, 'SVA', 'cm'), 'SVA', 10);
      return addLine(d, 'SVA', m(p(220, 150)), m(p(250, 650)));
    };
    const right = draw(blank, (q) => q);
    const left = draw(setFacing(blank, 'left'), mirror);
    for (const doc of [right, left]) {
      expect(measureOf(doc, 'TK')).toMatchObject({ angle: 30, diagnosis: '胸椎后凸正常' });
      // C7 30 px behind the S1 corner at 0.1 cm a pixel: −3 cm, not the line's 50.09 cm.
      expect(recompute(doc, 'SVA').sva).toBe(-3);
      expect(measureOf(doc, 'SVA').lines[0]!.linelength).toBe(50.09);
    }
    const flipped = setFacing(right, 'left');
    expect(measureOf(flipped, 'TK')).toMatchObject({ angle: -30, diagnosis: '胸椎后凸不足' });
    expect(recompute(flipped, 'SVA').sva).toBe(3);
    expect(readDocument(writeDocument(flipped))?.facing).toBe('left');
  });

  it("the study's band set: LL 55° is 正常 by the literature (轻度增大 by the spec); PI reads PI−LL when LL is drawn", () => {
    const draw = (doc: MeasureDocument) => {
      // LL: L1 flat, S1 55° down anteriorly (x = 100 + 100·cos 55°, y = 500 + 100·sin 55°, to the pixel).
      let d = addLine(doc, 'LL', p(100, 200), p(200, 200));
      d = addLine(d, 'LL', p(100, 500), p(157, 582));
      // PI: the perpendicular and the hip-axis line meeting at 70°.
      d = addLine(d, 'PI', p(250, 500), p(250, 700));
      return addLine(d, 'PI', p(250, 500), p(250 + 188, 500 + 68));
    };
    const spec = draw(blank);
    const literature = draw(newDocument('img-key', 'literature'));
    expect(measureOf(spec, 'LL')).toMatchObject({ angle: 55, diagnosis: '腰椎前凸轻度增大' });
    expect(measureOf(literature, 'LL')).toMatchObject({ angle: 55, diagnosis: '腰椎前凸正常' });
    expect(measureOf(spec, 'PI')).toMatchObject({ angle: 70, diagnosis: '' });
    expect(recompute(literature, 'PI').mismatch).toBe(15);
    expect(measureOf(literature, 'PI').diagnosis).toBe('PI−LL中度不匹配（SRS–Schwab +）');
    // LL edited: PI's diagnosis follows; LL deleted: PI has none.
    const flatter = moveHandle(literature, 'LL', 1, 1, p(172, 569));
    expect(measureOf(flatter, 'LL').angle).toBe(44);
    expect(measureOf(flatter, 'PI').diagnosis).toBe('PI−LL重度不匹配（SRS–Schwab ++）');
    expect(measureOf(clearMeasure(flatter, 'LL'), 'PI').diagnosis).toBe('');
    expect(readDocument(writeDocument(literature), 'literature')).toEqual(literature);
  });
});
