/**
 * The two fixed sets of lab sheets the recognition bench reads (README.md beside this file):
 * - `tuning`: what engineers look at while tuning recognition (nine layouts, five fonts, a two-page PDF);
 * - `holdout`: never looked at while tuning. Other seeds, and two layouts (`bracket-code`,
 *   `two-column-numbered`) and one font (`ar-ukai`, AR PL UKai) that appear only here, so a change that
 *   fits the tuning sheets rather than lab reports shows as a gap between the two.
 * Each set is half clean pages and half phone photos (on a desk, on a near-white surface, one turned 90° and one
 * 180°). Everything is drawn from the sheet's seed (seededRandom of report-image.ts): a set is the same bytes on
 * every run on the same machine.
 */
import { createCanvas, PDFDocument } from '@napi-rs/canvas';
import { seededRandom } from '../report-image.js';
import { pick, randomStyle, sheetContent, type TruthRow } from './content.js';
import { drawPage } from './draw.js';
import { fontFamily, fontInstalled, SHEET_FONTS, type SheetFont } from './fonts.js';
import { layoutOf, tableArea, type FlagStyle, type LayoutId } from './layouts.js';
import { photograph, type PhotoKind, type PhotoLabels } from './photo.js';

export type SetName = 'tuning' | 'holdout';
export const SET_NAMES: readonly SetName[] = ['tuning', 'holdout'];

export const TUNING_LAYOUTS: readonly LayoutId[] = [
  'ruled-code',
  'ruled-plain',
  'code-first',
  'two-column',
  'numbered',
  'glued-flag',
  'range-first',
  'boxed-grid',
  'urine',
];
export const PDF_LAYOUT: LayoutId = 'pdf-two-page';
export const HOLDOUT_ONLY_LAYOUTS: readonly LayoutId[] = ['bracket-code', 'two-column-numbered'];
export const HOLDOUT_ONLY_FONT: SheetFont = 'ar-ukai';
const SEEDS: Record<SetName, number> = { tuning: 20_261, holdout: 90_173 };

export interface SheetSpec {
  id: string;
  set: SetName;
  layout: LayoutId;
  font: SheetFont;
  photo: PhotoKind;
  seed: number;
}

export interface LabSheet {
  spec: SheetSpec;
  bytes: Buffer;
  mime: 'image/png' | 'image/jpeg' | 'application/pdf';
  title: string;
  /** Every analyte row printed, on every page, as printed. */
  rows: TruthRow[];
  photo: PhotoLabels;
}

/** The fonts of a set that are installed (a missing one is skipped). */
export function setFonts(set: SetName): SheetFont[] {
  const all = Object.keys(SHEET_FONTS) as SheetFont[];
  return all.filter((f) => fontInstalled(f) && (set === 'holdout' || f !== HOLDOUT_ONLY_FONT));
}

/** The sheets of a set, in order: each layout's sheets, then the PDF. */
export function sheetSet(set: SetName): SheetSpec[] {
  const fonts = setFonts(set);
  if (fonts.length === 0) return [];
  const random = seededRandom(SEEDS[set]);
  const layouts = set === 'tuning' ? TUNING_LAYOUTS : [...TUNING_LAYOUTS, ...HOLDOUT_ONLY_LAYOUTS];
  const perLayout = set === 'tuning' ? 4 : 3;
  // Half clean, half photos, the photos alternating desk and near-white; two of them turned.
  const turned: Record<SetName, Record<number, PhotoKind>> = {
    tuning: { 9: 'turned-180', 21: 'turned-90' },
    holdout: { 5: 'turned-90', 27: 'turned-180' },
  };
  const specs: SheetSpec[] = [];
  // Each font once in every run of as many sheets, in a seeded order (not tied to clean or photo).
  const queue: SheetFont[] = [];
  const nextFont = () => {
    if (queue.length === 0) {
      const order = fonts.map((f) => ({ f, k: random() })).sort((a, b) => a.k - b.k);
      queue.push(...order.map((o) => o.f));
    }
    return queue.shift()!;
  };
  const add = (layout: LayoutId, photo: PhotoKind) => {
    const i = specs.length;
    specs.push({
      id: `${set}-${String(i + 1).padStart(2, '0')}-${layout}`,
      set,
      layout,
      font: nextFont(),
      photo,
      seed: SEEDS[set] * 1000 + i,
    });
  };
  let photos = 0;
  for (const layout of layouts) {
    for (let k = 0; k < perLayout; k++) {
      const i = specs.length;
      const clean = i % 2 === 0;
      const photo: PhotoKind = clean ? 'clean' : (turned[set][i] ?? (photos++ % 2 === 0 ? 'desk' : 'white'));
      add(layout, photo);
    }
  }
  add(PDF_LAYOUT, 'clean');
  return specs;
}

/** Draws a sheet: its bytes, and the rows printed on it. */
export async function renderSheet(spec: SheetSpec): Promise<LabSheet> {
  const random = seededRandom(spec.seed);
  const layout = layoutOf(spec.layout);
  const style = randomStyle(random);
  const flags: FlagStyle = layout.flags === 'either' ? pick(['arrow', 'letter'] as const, random) : layout.flags;
  const { width, height, capacity } = tableArea(layout);
  const family = fontFamily(spec.font);
  const content = sheetContent(pick(layout.panels, random), capacity, style, random);

  if (layout.secondPage) {
    const second = sheetContent(layout.secondPage, capacity, style, random);
    second.patient = content.patient;
    second.hospital = content.hospital;
    const doc = new PDFDocument({ title: content.title, creator: 'LIS', producer: 'LIS' });
    const rows: TruthRow[] = [];
    // A4 in points; the page is drawn in its 200-dpi pixels, scaled.
    const [pw, ph] = [595.28, 841.89];
    [content, second].forEach((c, i) => {
      const g = doc.beginPage(pw, ph);
      g.scale(pw / width, ph / height);
      rows.push(...drawPage(g, layout, c, family, flags, i + 1));
      doc.endPage();
    });
    return { spec, bytes: doc.close(), mime: 'application/pdf', title: content.title, rows, photo: { kind: 'clean' } };
  }

  const canvas = createCanvas(width, height);
  const g = canvas.getContext('2d');
  const rows = drawPage(g, layout, content, family, flags);
  const { data } = g.getImageData(0, 0, width, height);
  const { bytes, labels } = await photograph({ width, height, data }, spec.photo, random);
  return {
    spec,
    bytes,
    mime: spec.photo === 'clean' ? 'image/png' : 'image/jpeg',
    title: content.title,
    rows,
    photo: labels,
  };
}
