import * as dicomParserModule from 'dicom-parser';

/**
 * Reading uncompressed DICOM files for the in-app imaging viewer (docs/spine-tools.md, "Imaging viewer"), and the
 * pure maths of the viewer: window/level to grey bytes, zoom and pan, distances in mm from the pixel spacing.
 */

// dicom-parser ships a UMD bundle: the bundler gives its namespace, Node's loader a default export.
const dicomParser =
  (dicomParserModule as unknown as { default?: typeof dicomParserModule }).default ?? dicomParserModule;

/** Little-endian transfer syntaxes whose pixels are stored as they are. */
export const UNCOMPRESSED_SYNTAXES = ['1.2.840.10008.1.2', '1.2.840.10008.1.2.1'] as const;

export const DICOM_MSG = {
  notDicom: '无法读取该 DICOM 文件',
  compressed: '暂不支持压缩的 DICOM 影像，请导出为未压缩格式',
  unsupported: '暂不支持该 DICOM 像素格式',
} as const;

export class DicomError extends Error {}

export interface DicomImage {
  rows: number;
  columns: number;
  frames: number;
  samplesPerPixel: 1 | 3;
  bitsAllocated: 8 | 16;
  signed: boolean;
  photometric: string;
  rescaleSlope: number;
  rescaleIntercept: number;
  /** The file's own window, or one spanning the pixel values. */
  window: { center: number; width: number };
  /** mm between rows and between columns (PixelSpacing, else ImagerPixelSpacing); null when unknown. */
  pixelSpacing: { row: number; column: number } | null;
  /** Stored values of one frame, rescaled (slope, intercept); RGB frames hold r, g, b per pixel. */
  frame: (index: number) => Float32Array;
}

/** Whether the bytes start like a DICOM Part 10 file (128-byte preamble, then DICM). */
export function looksLikeDicom(bytes: Uint8Array): boolean {
  return bytes.length > 132 && String.fromCharCode(...bytes.subarray(128, 132)) === 'DICM';
}

function numbers(text: string | undefined): number[] {
  return (text ?? '')
    .split('\\')
    .map((s) => Number(s.trim()))
    .filter((n) => Number.isFinite(n));
}

/** Parses an uncompressed DICOM file; throws DicomError with a message to show otherwise. */
export function parseDicomImage(bytes: Uint8Array): DicomImage {
  let ds: dicomParserModule.DataSet;
  try {
    ds = dicomParser.parseDicom(bytes);
  } catch {
    throw new DicomError(DICOM_MSG.notDicom);
  }
  const syntax = (ds.string('x00020010') ?? '').replace(/\0/g, '').trim();
  if (syntax && !(UNCOMPRESSED_SYNTAXES as readonly string[]).includes(syntax)) {
    throw new DicomError(DICOM_MSG.compressed);
  }
  const pixel = ds.elements.x7fe00010;
  const rows = ds.uint16('x00280010') ?? 0;
  const columns = ds.uint16('x00280011') ?? 0;
  if (!pixel || rows <= 0 || columns <= 0) throw new DicomError(DICOM_MSG.notDicom);
  if (pixel.encapsulatedPixelData) throw new DicomError(DICOM_MSG.compressed);
  const samples = ds.uint16('x00280002') ?? 1;
  const bits = ds.uint16('x00280100') ?? 16;
  const planar = ds.uint16('x00280006') ?? 0;
  if ((samples !== 1 && samples !== 3) || (bits !== 8 && bits !== 16) || (samples === 3 && bits !== 8)) {
    throw new DicomError(DICOM_MSG.unsupported);
  }
  const signed = (ds.uint16('x00280103') ?? 0) === 1;
  const photometric = (ds.string('x00280004') ?? (samples === 3 ? 'RGB' : 'MONOCHROME2')).trim();
  const slope = ds.floatString('x00281053') ?? 1;
  const intercept = ds.floatString('x00281052') ?? 0;
  const frameBytes = rows * columns * samples * (bits / 8);
  const frames = Math.max(1, Math.min(ds.intString('x00280008') ?? 1, Math.floor(pixel.length / frameBytes)));
  if (pixel.length < frameBytes) throw new DicomError(DICOM_MSG.notDicom);
  const buffer = ds.byteArray;

  const frame = (index: number): Float32Array => {
    const i = Math.min(Math.max(Math.trunc(index), 0), frames - 1);
    const offset = pixel.dataOffset + i * frameBytes;
    const count = rows * columns * samples;
    const out = new Float32Array(count);
    if (bits === 8) {
      if (samples === 3 && planar === 1) {
        const plane = rows * columns;
        for (let p = 0; p < plane; p += 1) {
          for (let c = 0; c < 3; c += 1) out[p * 3 + c] = buffer[offset + c * plane + p]!;
        }
      } else {
        for (let k = 0; k < count; k += 1) out[k] = buffer[offset + k]! * slope + intercept;
      }
    } else {
      const view = new DataView(buffer.buffer, buffer.byteOffset + offset, frameBytes);
      for (let k = 0; k < count; k += 1) {
        const raw = signed ? view.getInt16(k * 2, true) : view.getUint16(k * 2, true);
        out[k] = raw * slope + intercept;
      }
    }
    return out;
  };

  const [center, width] = [numbers(ds.string('x00281050'))[0], numbers(ds.string('x00281051'))[0]];
  let window: { center: number; width: number };
  if (center !== undefined && width !== undefined && width > 0) window = { center, width };
  else {
    const first = frame(0);
    let lo = Infinity;
    let hi = -Infinity;
    for (const v of first) {
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
    window = { center: (lo + hi) / 2, width: Math.max(hi - lo, 1) };
  }
  const spacing = numbers(ds.string('x00280030'));
  const imager = numbers(ds.string('x00181164'));
  const pair = spacing.length >= 2 ? spacing : imager.length >= 2 ? imager : null;
  return {
    rows,
    columns,
    frames,
    samplesPerPixel: samples,
    bitsAllocated: bits,
    signed,
    photometric,
    rescaleSlope: slope,
    rescaleIntercept: intercept,
    window,
    pixelSpacing: pair && pair[0]! > 0 && pair[1]! > 0 ? { row: pair[0]!, column: pair[1]! } : null,
    frame,
  };
}

/**
 * RGBA bytes of a frame under a window (DICOM PS3.3 C.11.2.1.2, linear): values below center − width/2 are
 * black, above center + width/2 white; MONOCHROME1 is inverted. RGB frames are copied as they are.
 */
export function toRgba(
  values: Float32Array,
  image: Pick<DicomImage, 'samplesPerPixel' | 'photometric'>,
  window: { center: number; width: number },
): Uint8ClampedArray<ArrayBuffer> {
  const pixels = image.samplesPerPixel === 3 ? values.length / 3 : values.length;
  const out = new Uint8ClampedArray(new ArrayBuffer(pixels * 4));
  if (image.samplesPerPixel === 3) {
    for (let p = 0; p < pixels; p += 1) {
      out[p * 4] = values[p * 3]!;
      out[p * 4 + 1] = values[p * 3 + 1]!;
      out[p * 4 + 2] = values[p * 3 + 2]!;
      out[p * 4 + 3] = 255;
    }
    return out;
  }
  const width = Math.max(window.width, 1);
  const low = window.center - 0.5 - (width - 1) / 2;
  const invert = image.photometric === 'MONOCHROME1';
  for (let p = 0; p < pixels; p += 1) {
    let g = ((values[p]! - low) / (width - 1 || 1)) * 255;
    g = g < 0 ? 0 : g > 255 ? 255 : g;
    if (invert) g = 255 - g;
    out[p * 4] = out[p * 4 + 1] = out[p * 4 + 2] = g;
    out[p * 4 + 3] = 255;
  }
  return out;
}

export interface Point {
  x: number;
  y: number;
}

/**
 * The distance between two image points (pixel coordinates): in mm when the pixel spacing is known (row spacing
 * along y, column spacing along x), else in pixels. Two decimals.
 */
export function imageDistance(
  a: Point,
  b: Point,
  spacing: { row: number; column: number } | null,
): { value: number; unit: 'mm' | 'px' } {
  const dx = (b.x - a.x) * (spacing?.column ?? 1);
  const dy = (b.y - a.y) * (spacing?.row ?? 1);
  return { value: Math.round(Math.hypot(dx, dy) * 100) / 100, unit: spacing ? 'mm' : 'px' };
}

export interface View {
  zoom: number;
  panX: number;
  panY: number;
}

export const ZOOM_MIN = 0.05;
export const ZOOM_MAX = 20;

/** The view that fits an image of the given size into the viewport, centred. */
export function fitView(image: { width: number; height: number }, viewport: { width: number; height: number }): View {
  const zoom = Math.min(viewport.width / image.width, viewport.height / image.height);
  return { zoom, panX: (viewport.width - image.width * zoom) / 2, panY: (viewport.height - image.height * zoom) / 2 };
}

/** Zooms by a factor about a screen point, which stays over the same image point. */
export function zoomAt(view: View, factor: number, at: Point): View {
  const zoom = Math.min(Math.max(view.zoom * factor, ZOOM_MIN), ZOOM_MAX);
  const k = zoom / view.zoom;
  return { zoom, panX: at.x - (at.x - view.panX) * k, panY: at.y - (at.y - view.panY) * k };
}

/** A screen point (relative to the canvas) as image pixel coordinates. */
export function screenToImage(view: View, p: Point): Point {
  return { x: (p.x - view.panX) / view.zoom, y: (p.y - view.panY) / view.zoom };
}

/** Window/level by dragging: right widens the window, down raises the center (as common viewers do). */
export function dragWindow(
  window: { center: number; width: number },
  dx: number,
  dy: number,
  sensitivity = 1,
): { center: number; width: number } {
  return { center: window.center + dy * sensitivity, width: Math.max(1, window.width + dx * sensitivity) };
}
