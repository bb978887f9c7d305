/**
 * A phone photograph of a drawn page: the paper on a darker desk (not filling the frame) or on a near-white
 * surface, turned 2–6.5° either way, in perspective (a quadrilateral: keystone plus jitter of the corners, drawn
 * by inverse mapping through a homography, bilinear), lit unevenly (a gradient, sometimes a hand's soft shadow),
 * blurred, noisy and saved as JPEG 50–85; or that photograph turned 90° or 180° (no EXIF orientation).
 */
import sharp from 'sharp';

export type PhotoKind = 'clean' | 'desk' | 'white' | 'turned-90' | 'turned-180';

export interface PhotoLabels {
  kind: PhotoKind;
  surface?: 'desk' | 'white';
  /** Degrees, clockwise. */
  rotation?: number;
  /** The narrowing of one edge (0–1) and which edge. */
  keystone?: { edge: 'top' | 'bottom' | 'left' | 'right'; amount: number };
  shadow?: boolean;
  blur?: number;
  noise?: number;
  jpegQuality?: number;
}

export interface Raster {
  width: number;
  height: number;
  /** RGBA. */
  data: Uint8Array | Uint8ClampedArray;
}

type Point = readonly [number, number];

/** The homography taking the four `from` points to the four `to` points (a 3×3 matrix, row-major, h33 = 1). */
export function homography(from: readonly Point[], to: readonly Point[]): number[] {
  const a: number[][] = [];
  for (let i = 0; i < 4; i++) {
    const [x, y] = from[i]!;
    const [u, v] = to[i]!;
    a.push([x, y, 1, 0, 0, 0, -u * x, -u * y, u]);
    a.push([0, 0, 0, x, y, 1, -v * x, -v * y, v]);
  }
  // Gaussian elimination with partial pivoting on the 8×9 augmented matrix.
  for (let c = 0; c < 8; c++) {
    let p = c;
    for (let r = c + 1; r < 8; r++) if (Math.abs(a[r]![c]!) > Math.abs(a[p]![c]!)) p = r;
    [a[c], a[p]] = [a[p]!, a[c]!];
    for (let r = 0; r < 8; r++) {
      if (r === c) continue;
      const f = a[r]![c]! / a[c]![c]!;
      for (let k = c; k < 9; k++) a[r]![k]! -= f * a[c]![k]!;
    }
  }
  return [...a.map((row, i) => row[8]! / row[i]!), 1];
}

const between = (random: () => number, low: number, high: number) => low + random() * (high - low);

/** The photograph of the page (PNG bytes for a clean page). */
export async function photograph(
  page: Raster,
  kind: PhotoKind,
  random: () => number,
): Promise<{ bytes: Buffer; labels: PhotoLabels }> {
  if (kind === 'clean') {
    const png = await sharp(page.data, { raw: { width: page.width, height: page.height, channels: 4 } })
      .png()
      .toBuffer();
    return { bytes: png, labels: { kind } };
  }
  const surface = kind === 'desk' || kind === 'turned-90' ? 'desk' : 'white';
  const landscape = page.width > page.height;
  const [W, H] = landscape ? [2400, 1800] : [1800, 2400];
  const fit =
    Math.min(W / page.width, H / page.height) *
    (surface === 'desk' ? between(random, 0.72, 0.86) : between(random, 0.9, 0.98));
  const [w, h] = [page.width * fit, page.height * fit];
  const centre: Point = [W / 2 + between(random, -0.03, 0.03) * W, H / 2 + between(random, -0.03, 0.03) * H];
  const rotation = (random() < 0.5 ? -1 : 1) * between(random, 2, 6.5);
  const edge = (['top', 'bottom', 'left', 'right'] as const)[Math.floor(random() * 4)]!;
  const amount = between(random, 0.02, 0.08);
  const corners: Point[] = [
    [-w / 2, -h / 2],
    [w / 2, -h / 2],
    [w / 2, h / 2],
    [-w / 2, h / 2],
  ].map(([x, y], i) => {
    const narrowed =
      (edge === 'top' && i < 2) || (edge === 'bottom' && i >= 2)
        ? [x! * (1 - amount), y!]
        : (edge === 'left' && (i === 0 || i === 3)) || (edge === 'right' && (i === 1 || i === 2))
          ? [x!, y! * (1 - amount)]
          : [x!, y!];
    const jitter = 0.006 * w;
    const [jx, jy] = [narrowed[0]! + between(random, -jitter, jitter), narrowed[1]! + between(random, -jitter, jitter)];
    const t = (rotation * Math.PI) / 180;
    return [centre[0] + jx * Math.cos(t) - jy * Math.sin(t), centre[1] + jx * Math.sin(t) + jy * Math.cos(t)] as Point;
  });
  const m = homography(corners, [
    [0, 0],
    [page.width, 0],
    [page.width, page.height],
    [0, page.height],
  ]);

  // The surface under the paper: a dark wood or grey desk, or a near-white table.
  const base =
    surface === 'desk'
      ? ([
          [104, 76, 50],
          [72, 74, 80],
          [46, 72, 58],
        ][Math.floor(random() * 3)] as [number, number, number])
      : ([between(random, 228, 244), between(random, 226, 242), between(random, 220, 238)] as [number, number, number]);
  const paper = [between(random, 246, 255), between(random, 244, 253), between(random, 236, 248)];
  const grain = between(random, 0, Math.PI * 2);
  // Uneven light: a gradient across a random direction, and sometimes a hand's shadow with a soft edge.
  const angle = between(random, 0, Math.PI * 2);
  const [dx, dy] = [Math.cos(angle), Math.sin(angle)];
  const depth = between(random, 0.08, 0.28);
  const brightness = between(random, 0.86, 1);
  const shadow = random() < 0.4;
  const shadowAngle = between(random, 0, Math.PI * 2);
  const shadowAt = between(random, 0.55, 0.8);
  const noise = between(random, 2, 7);
  const out = new Uint8ClampedArray(W * H * 3);
  const reach = Math.abs(dx) * W + Math.abs(dy) * H;
  const [sx, sy] = [Math.cos(shadowAngle), Math.sin(shadowAngle)];
  const shadowReach = Math.abs(sx) * W + Math.abs(sy) * H;
  const src = page.data;
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const z = m[6]! * x + m[7]! * y + 1;
      const u = (m[0]! * x + m[1]! * y + m[2]!) / z;
      const v = (m[3]! * x + m[4]! * y + m[5]!) / z;
      let r: number, gr: number, b: number;
      if (u >= 0 && v >= 0 && u < page.width - 1 && v < page.height - 1) {
        const x0 = Math.floor(u);
        const y0 = Math.floor(v);
        const fx = u - x0;
        const fy = v - y0;
        const i = (y0 * page.width + x0) * 4;
        const j = i + page.width * 4;
        const mix = (c: number) =>
          (((src[i + c]! * (1 - fx) + src[i + 4 + c]! * fx) * (1 - fy) +
            (src[j + c]! * (1 - fx) + src[j + 4 + c]! * fx) * fy) /
            255) *
          paper[c]!;
        [r, gr, b] = [mix(0), mix(1), mix(2)];
      } else {
        const wood = surface === 'desk' ? 10 * Math.sin(y * 0.045 + Math.sin(x * 0.004 + grain) * 3) : 0;
        [r, gr, b] = [base[0] + wood, base[1] + wood, base[2] + wood];
      }
      const along = ((x - W / 2) * dx + (y - H / 2) * dy) / reach + 0.5;
      let light = brightness * (1 - depth * along);
      if (shadow) {
        const s = ((x - W / 2) * sx + (y - H / 2) * sy) / shadowReach + 0.5;
        light *= 1 - 0.3 / (1 + Math.exp(-(s - shadowAt) * 40));
      }
      const grainNoise = (random() + random() + random() - 1.5) * noise;
      const o = (y * W + x) * 3;
      out[o] = r * light + grainNoise;
      out[o + 1] = gr * light * 0.99 + grainNoise;
      out[o + 2] = b * light * 0.95 + grainNoise;
    }
  }
  const blur = Math.round(between(random, 0.5, 1.3) * 100) / 100;
  const jpegQuality = Math.round(between(random, 50, 85));
  const turn = kind === 'turned-90' ? 90 : kind === 'turned-180' ? 180 : 0;
  const bytes = await sharp(out, { raw: { width: W, height: H, channels: 3 } })
    .rotate(turn)
    .blur(blur)
    .jpeg({ quality: jpegQuality })
    .toBuffer();
  return {
    bytes,
    labels: {
      kind,
      surface,
      rotation: Math.round(rotation * 10) / 10,
      keystone: { edge, amount: Math.round(amount * 1000) / 1000 },
      shadow,
      blur,
      noise: Math.round(noise * 10) / 10,
      jpegQuality,
    },
  };
}
