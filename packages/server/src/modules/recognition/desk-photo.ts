/**
 * A drawn report made to look photographed on a desk, for the levelling tests (levelling.test.ts): the page turned
 * as a whole, smaller than the picture on a darker desk, leaning away from the camera (keystone), a shadow falling
 * over part of it, a grey cast, speckles and JPEG. Test tooling only (@napi-rs/canvas is a development dependency).
 */
import { createCanvas, loadImage } from '@napi-rs/canvas';

export interface DeskPhotoOptions {
  /** Degrees the page is turned, clockwise (drawReport's sense; sharp's `rotate` turns the same way). */
  turn?: number;
  /** The desk's grey (0–255). */
  desk?: number;
  /** How much narrower the page's top edge is than its bottom, as a share of its width (0: none). */
  keystone?: number;
  /** The darkest the shadow makes the page (0: none, 0.5: half as bright), falling from the left. */
  shadow?: number;
  /** The shadow ends in a sharp edge a third of the way across (a hand's or a phone's), not fading out. */
  hardShadow?: boolean;
  /** A multiplier of every pixel (a grey or dim light): 1 for none. */
  light?: number;
  /** JPEG quality 1–100. */
  jpegQuality?: number;
}

/** `page` (an encoded image) on a desk, its faults as asked; answers JPEG. */
export async function deskPhoto(page: Buffer, options: DeskPhotoOptions = {}): Promise<Buffer> {
  const src = await loadImage(page);
  const { width: w, height: h } = src;
  // The keystone: each band of the page drawn narrower the nearer the top it is.
  const keystone = options.keystone ?? 0;
  const leaned = createCanvas(w, h);
  const lg = leaned.getContext('2d');
  for (let y = 0; y < h; y += 2) {
    const scale = 1 - keystone * (1 - y / h);
    const bandWidth = w * scale;
    lg.drawImage(src, 0, y, w, 2, (w - bandWidth) / 2, y, bandWidth, 2);
  }

  // The desk: a margin of about a tenth of the turned page all round.
  const turn = ((options.turn ?? 0) * Math.PI) / 180;
  const [cos, sin] = [Math.abs(Math.cos(turn)), Math.abs(Math.sin(turn))];
  const cw = Math.round((w * cos + h * sin) * 1.2);
  const ch = Math.round((w * sin + h * cos) * 1.2);
  const canvas = createCanvas(cw, ch);
  const g = canvas.getContext('2d');
  const desk = options.desk ?? 110;
  g.fillStyle = `rgb(${desk},${Math.round(desk * 0.9)},${Math.round(desk * 0.75)})`;
  g.fillRect(0, 0, cw, ch);
  g.save();
  g.translate(cw / 2, ch / 2);
  g.rotate(turn);
  g.drawImage(leaned, -w / 2, -h / 2);
  g.restore();

  // The shadow: from the left edge, darkest there, gone by two thirds of the way across (or a third, sharply).
  const shadow = options.shadow ?? 0;
  if (shadow > 0) {
    const gradient = g.createLinearGradient(0, 0, cw * 0.66, ch * 0.2);
    gradient.addColorStop(0, `rgba(0,0,0,${shadow})`);
    if (options.hardShadow) {
      gradient.addColorStop(0.5, `rgba(0,0,0,${shadow * 0.8})`);
      gradient.addColorStop(0.52, 'rgba(0,0,0,0)');
    }
    gradient.addColorStop(1, 'rgba(0,0,0,0)');
    g.fillStyle = gradient;
    g.fillRect(0, 0, cw, ch);
  }
  const light = options.light ?? 1;
  if (light !== 1) {
    const image = g.getImageData(0, 0, cw, ch);
    const px = image.data;
    for (let i = 0; i < px.length; i += 4) {
      px[i] = Math.min(255, px[i]! * light);
      px[i + 1] = Math.min(255, px[i + 1]! * light);
      px[i + 2] = Math.min(255, px[i + 2]! * light * 0.96);
    }
    g.putImageData(image, 0, 0);
  }
  return canvas.toBuffer('image/jpeg', options.jpegQuality ?? 70);
}
