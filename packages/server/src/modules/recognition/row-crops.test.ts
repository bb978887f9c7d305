import { describe, expect, it } from 'vitest';
import type { RowBox } from '@ecrf/core';
import { cropRectangles } from './row-crops.js';

/**
 * Where each recognised row is cut (docs/recognition.md, "Filling"): across its own table, so that the crops of a
 * table line up, and on a page of tables side by side (双栏) not across the neighbouring table's rows.
 */
const PAGE = { width: 1600, height: 900 };
/** A row of text 40 high at `top`, from `left` to `right`: a margin of 0.3 × 40 = 12 around it. */
const row = (left: number, top: number, right: number): RowBox => [left, top, right, top + 40];

describe('cropRectangles', () => {
  it('RECOG-01: on a one-table page every crop spans all the rows, a margin of 0.3 text heights around', () => {
    const boxes = [row(100, 300, 1300), row(100, 400, 900), row(140, 500, 1250)];
    expect(cropRectangles(boxes, PAGE)).toEqual([
      { left: 88, top: 288, width: 1224, height: 64 },
      { left: 88, top: 388, width: 1224, height: 64 },
      { left: 88, top: 488, width: 1224, height: 64 },
    ]);
  });

  it('RECOG-01: on a page of two tables side by side each crop spans its own table, not the other', () => {
    // Left table 60–740, right table 820–1540 (a row may end short of its table's widest row).
    const boxes = [row(60, 200, 740), row(820, 200, 1540), row(60, 260, 700), row(820, 260, 1500), row(80, 320, 740)];
    const rects = cropRectangles(boxes, PAGE);
    const left = { left: 48, width: 704 };
    const right = { left: 808, width: 744 };
    expect(rects).toEqual([
      { ...left, top: 188, height: 64 },
      { ...right, top: 188, height: 64 },
      { ...left, top: 248, height: 64 },
      { ...right, top: 248, height: 64 },
      { ...left, top: 308, height: 64 },
    ]);
  });

  it('the margin stops halfway to the neighbouring table and at the page edge; a row without a box is not cut', () => {
    const boxes = [row(5, 100, 790), undefined, row(800, 100, 1598), row(810, 860, 1590)];
    expect(cropRectangles(boxes, PAGE)).toEqual([
      { left: 0, top: 88, width: 795, height: 64 },
      undefined,
      { left: 795, top: 88, width: 805, height: 64 },
      { left: 795, top: 848, width: 805, height: 52 },
    ]);
    expect(cropRectangles([], PAGE)).toEqual([]);
  });

  it('rows whose extents overlap are one table, whatever their order on the page', () => {
    // A short row (a name and value only) overlaps the wide rows of its table: one band, one width.
    const boxes = [row(700, 100, 1500), row(100, 100, 800), row(300, 200, 500)];
    const rects = cropRectangles(boxes, PAGE);
    expect(new Set(rects.map((r) => `${r!.left} ${r!.width}`))).toEqual(new Set(['88 1424']));
  });
});
