import { describe, expect, it } from 'vitest';
import {
  DICOM_MSG,
  dragWindow,
  fitView,
  imageDistance,
  looksLikeDicom,
  parseDicomImage,
  screenToImage,
  toRgba,
  zoomAt,
} from './dicom';
import { buildDicom } from './dicom-test-file';

/** Two 4 × 3 frames: the first a ramp 0…1100 step 100, the second all 2000. */
function twoFrames() {
  const pixels = new Uint16Array(24);
  for (let i = 0; i < 12; i += 1) pixels[i] = i * 100;
  pixels.fill(2000, 12);
  return buildDicom({ rows: 3, columns: 4, frames: 2, pixels, pixelSpacing: [0.5, 0.25], window: [600, 1200] });
}

describe('imaging viewer: DICOM', () => {
  it('reads the size, frames, pixel spacing, window and each frame of an uncompressed file', () => {
    const bytes = twoFrames();
    expect(looksLikeDicom(bytes)).toBe(true);
    const image = parseDicomImage(bytes);
    expect([image.rows, image.columns, image.frames]).toEqual([3, 4, 2]);
    expect(image.pixelSpacing).toEqual({ row: 0.5, column: 0.25 });
    expect(image.window).toEqual({ center: 600, width: 1200 });
    expect(Array.from(image.frame(0).slice(0, 4))).toEqual([0, 100, 200, 300]);
    expect(Array.from(image.frame(1).slice(0, 2))).toEqual([2000, 2000]);
  });

  it('without a window in the file, the window spans the values of the first frame', () => {
    const image = parseDicomImage(buildDicom({ rows: 1, columns: 2, pixels: new Uint16Array([100, 300]) }));
    expect(image.window).toEqual({ center: 200, width: 200 });
    expect(image.pixelSpacing).toBeNull();
  });

  it('refuses compressed transfer syntaxes and bytes that are not DICOM, with a message to show', () => {
    const jpeg = buildDicom({ rows: 1, columns: 1, pixels: new Uint16Array([1]), syntax: '1.2.840.10008.1.2.4.50' });
    expect(() => parseDicomImage(jpeg)).toThrow(DICOM_MSG.compressed);
    expect(() => parseDicomImage(new Uint8Array([1, 2, 3]))).toThrow(DICOM_MSG.notDicom);
    expect(looksLikeDicom(new Uint8Array(200))).toBe(false);
  });

  it('window/level maps values linearly to grey: below the window black, above white', () => {
    const rgba = toRgba(
      new Float32Array([0, 600, 1300]),
      { samplesPerPixel: 1, photometric: 'MONOCHROME2' },
      {
        center: 600,
        width: 1200,
      },
    );
    expect([rgba[0], rgba[4], rgba[8], rgba[3]]).toEqual([0, 128, 255, 255]);
    const inverted = toRgba(
      new Float32Array([0]),
      { samplesPerPixel: 1, photometric: 'MONOCHROME1' },
      {
        center: 600,
        width: 1200,
      },
    );
    expect(inverted[0]).toBe(255);
    expect(dragWindow({ center: 600, width: 1200 }, 100, -50)).toEqual({ center: 550, width: 1300 });
    expect(dragWindow({ center: 0, width: 10 }, -100, 0).width).toBe(1);
  });

  it('distances are in mm from the pixel spacing (rows along y, columns along x), else in pixels', () => {
    expect(imageDistance({ x: 0, y: 0 }, { x: 40, y: 0 }, { row: 0.5, column: 0.25 })).toEqual({
      value: 10,
      unit: 'mm',
    });
    expect(imageDistance({ x: 0, y: 0 }, { x: 0, y: 40 }, { row: 0.5, column: 0.25 })).toEqual({
      value: 20,
      unit: 'mm',
    });
    expect(imageDistance({ x: 0, y: 0 }, { x: 3, y: 4 }, null)).toEqual({ value: 5, unit: 'px' });
  });

  it('zoom keeps the point under the mouse, and screen points map back to image pixels', () => {
    const view = fitView({ width: 200, height: 100 }, { width: 400, height: 400 });
    expect(view).toEqual({ zoom: 2, panX: 0, panY: 100 });
    const at = { x: 100, y: 150 };
    const before = screenToImage(view, at);
    const zoomed = zoomAt(view, 1.5, at);
    expect(zoomed.zoom).toBe(3);
    const after = screenToImage(zoomed, at);
    expect(after.x).toBeCloseTo(before.x, 10);
    expect(after.y).toBeCloseTo(before.y, 10);
  });
});
