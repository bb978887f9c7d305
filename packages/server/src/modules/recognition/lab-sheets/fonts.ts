/**
 * The six CJK fonts lab sheets are drawn in (Debian fonts-noto-cjk, fonts-wqy-zenhei, fonts-wqy-microhei,
 * fonts-arphic-uming, fonts-arphic-ukai): sans, serif (宋体-like), two 黑体 and the Ming and Kai (楷体) styles
 * some laboratory systems print in. A font whose file is missing is left out of every set (sets.ts says which).
 */
import fs from 'node:fs';
import { GlobalFonts } from '@napi-rs/canvas';

export const SHEET_FONTS = {
  'noto-sans': '/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc',
  'noto-serif': '/usr/share/fonts/opentype/noto/NotoSerifCJK-Regular.ttc',
  'wqy-zenhei': '/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc',
  'wqy-microhei': '/usr/share/fonts/truetype/wqy/wqy-microhei.ttc',
  'ar-uming': '/usr/share/fonts/truetype/arphic/uming.ttc',
  'ar-ukai': '/usr/share/fonts/truetype/arphic/ukai.ttc',
} as const;
export type SheetFont = keyof typeof SHEET_FONTS;

export const fontInstalled = (font: SheetFont) => fs.existsSync(SHEET_FONTS[font]);

const registered = new Set<SheetFont>();

/** The family name to draw the font with (registered on first use under a name of its own). */
export function fontFamily(font: SheetFont): string {
  const family = `Lab Sheet ${font}`;
  if (!registered.has(font)) {
    if (!GlobalFonts.registerFromPath(SHEET_FONTS[font], family)) throw new Error(`font ${font} not readable`);
    registered.add(font);
  }
  return family;
}
