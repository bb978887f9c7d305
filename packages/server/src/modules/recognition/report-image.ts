/**
 * Draws lab-report images with known values for the recognition tests and the accuracy benchmark
 * (bench/recognition.ts): a hospital's header, patient details, a table of analytes in a CJK font, then the
 * photograph's faults on demand (a turn of a few degrees, speckle noise, a grey cast, JPEG compression).
 * Test tooling only: @napi-rs/canvas is a development dependency.
 */
import fs from 'node:fs';
import { createCanvas, GlobalFonts } from '@napi-rs/canvas';
import { flagAgainstRange, type LabFlag } from '@ecrf/core';

export interface ReportRow {
  name: string;
  code: string;
  value: string;
  unit: string;
  range: string;
  flag: LabFlag;
}

export interface ReportImageOptions {
  title?: string;
  /** Degrees, clockwise. */
  rotation?: number;
  /** 0–1: the share of pixels speckled. */
  noise?: number;
  /** JPEG quality 1–100; PNG when absent. */
  jpegQuality?: number;
  font?: 'sans' | 'serif';
  /** Print the code column. */
  codes?: boolean;
  /** Random source for the noise (a seeded one keeps a benchmark repeatable). */
  random?: () => number;
}

const FONT_DIR = '/usr/share/fonts/opentype/noto';
const FONTS = { sans: 'NotoSansCJK-Regular.ttc', serif: 'NotoSerifCJK-Regular.ttc' } as const;
const FAMILY = { sans: 'Report Sans CJK', serif: 'Report Serif CJK' } as const;
let registered = false;

/** Whether the CJK fonts (Debian fonts-noto-cjk) are installed: without them Chinese renders as boxes. */
export function reportFontsInstalled(): boolean {
  return fs.existsSync(`${FONT_DIR}/${FONTS.sans}`);
}

function registerFonts() {
  if (registered) return;
  for (const key of ['sans', 'serif'] as const) {
    const file = `${FONT_DIR}/${FONTS[key]}`;
    if (fs.existsSync(file)) GlobalFonts.registerFromPath(file, FAMILY[key]);
  }
  registered = true;
}

/** A small deterministic random source (mulberry32). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Draws one report; answers the encoded image. */
export function drawReport(rows: readonly ReportRow[], options: ReportImageOptions = {}): Buffer {
  registerFonts();
  const family = FAMILY[options.font ?? 'sans'];
  const random = options.random ?? Math.random;
  const codes = options.codes ?? true;
  const width = 1600;
  const rowHeight = 54;
  const height = 360 + rows.length * rowHeight + 140;
  const canvas = createCanvas(width, height);
  const g = canvas.getContext('2d');
  g.fillStyle = '#ffffff';
  g.fillRect(0, 0, width, height);

  g.save();
  if (options.rotation) {
    g.translate(width / 2, height / 2);
    g.rotate((options.rotation * Math.PI) / 180);
    g.translate(-width / 2, -height / 2);
  }
  g.fillStyle = '#111111';
  g.font = `44px "${family}"`;
  g.textAlign = 'center';
  g.fillText('某某市第一人民医院检验报告单', width / 2, 80);
  g.font = `34px "${family}"`;
  g.fillText(options.title ?? '血常规', width / 2, 132);
  g.textAlign = 'left';
  g.font = `26px "${family}"`;
  g.fillText('姓名：张三    性别：男    年龄：56岁    科室：骨科    床号：12', 60, 196);
  g.fillText('标本：全血    送检日期：2026-11-20    样本号：20261120-0031', 60, 236);

  const columns = codes ? [60, 440, 620, 820, 1060, 1300] : [60, 0, 520, 760, 1020, 1300];
  g.lineWidth = 2;
  g.beginPath();
  g.moveTo(50, 262);
  g.lineTo(width - 50, 262);
  g.stroke();
  g.font = `28px "${family}"`;
  const headers = ['项目名称', '代码', '结果', '单位', '参考范围', '提示'];
  headers.forEach((h, i) => {
    if (i === 1 && !codes) return;
    g.fillText(h, columns[i]!, 300);
  });
  g.beginPath();
  g.moveTo(50, 318);
  g.lineTo(width - 50, 318);
  g.stroke();
  rows.forEach((row, j) => {
    const y = 366 + j * rowHeight;
    const cells = [row.name, row.code, row.value, row.unit, row.range, row.flag];
    cells.forEach((text, i) => {
      if (i === 1 && !codes) return;
      if (text) g.fillText(text, columns[i]!, y);
    });
  });
  const end = 366 + rows.length * rowHeight - 20;
  g.beginPath();
  g.moveTo(50, end);
  g.lineTo(width - 50, end);
  g.stroke();
  g.font = `24px "${family}"`;
  g.fillText('检验者：李四    审核者：王五    报告时间：2026-11-20 10:31', 60, end + 50);
  g.restore();

  const noise = options.noise ?? 0;
  if (noise > 0) {
    const image = g.getImageData(0, 0, width, height);
    const px = image.data;
    for (let i = 0; i < px.length; i += 4) {
      // A grey cast over the page, and speckles.
      const shade = 235 + Math.floor(random() * 20);
      if (px[i]! > 200) {
        px[i] = px[i + 1] = px[i + 2] = shade;
      }
      if (random() < noise) {
        const v = random() < 0.5 ? Math.floor(random() * 90) : 255;
        px[i] = px[i + 1] = px[i + 2] = v;
      }
    }
    g.putImageData(image, 0, 0);
  }
  return options.jpegQuality ? canvas.toBuffer('image/jpeg', options.jpegQuality) : canvas.toBuffer('image/png');
}

interface Analyte {
  name: string;
  code: string;
  unit: string;
  low: number;
  high: number;
  decimals: number;
}

/** Analytes of three report kinds with their usual units and reference ranges. */
export const REPORT_KINDS: Record<string, readonly Analyte[]> = {
  血常规: [
    { name: '白细胞计数', code: 'WBC', unit: '10^9/L', low: 3.5, high: 9.5, decimals: 2 },
    { name: '红细胞计数', code: 'RBC', unit: '10^12/L', low: 4.3, high: 5.8, decimals: 2 },
    { name: '血红蛋白', code: 'HGB', unit: 'g/L', low: 130, high: 175, decimals: 0 },
    { name: '红细胞压积', code: 'HCT', unit: '%', low: 40, high: 50, decimals: 1 },
    { name: '平均红细胞体积', code: 'MCV', unit: 'fL', low: 82, high: 100, decimals: 1 },
    { name: '平均红细胞血红蛋白含量', code: 'MCH', unit: 'pg', low: 27, high: 34, decimals: 1 },
    { name: '血小板计数', code: 'PLT', unit: '10^9/L', low: 125, high: 350, decimals: 0 },
    { name: '中性粒细胞百分比', code: 'NEUT%', unit: '%', low: 40, high: 75, decimals: 1 },
    { name: '淋巴细胞百分比', code: 'LYMPH%', unit: '%', low: 20, high: 50, decimals: 1 },
    { name: '单核细胞百分比', code: 'MONO%', unit: '%', low: 3, high: 10, decimals: 1 },
    { name: '中性粒细胞绝对值', code: 'NEUT#', unit: '10^9/L', low: 1.8, high: 6.3, decimals: 2 },
    { name: '淋巴细胞绝对值', code: 'LYMPH#', unit: '10^9/L', low: 1.1, high: 3.2, decimals: 2 },
  ],
  生化: [
    { name: '丙氨酸氨基转移酶', code: 'ALT', unit: 'U/L', low: 9, high: 50, decimals: 0 },
    { name: '天门冬氨酸氨基转移酶', code: 'AST', unit: 'U/L', low: 15, high: 40, decimals: 0 },
    { name: '总蛋白', code: 'TP', unit: 'g/L', low: 65, high: 85, decimals: 1 },
    { name: '白蛋白', code: 'ALB', unit: 'g/L', low: 40, high: 55, decimals: 1 },
    { name: '总胆红素', code: 'TBIL', unit: 'μmol/L', low: 0, high: 21, decimals: 1 },
    { name: '葡萄糖', code: 'GLU', unit: 'mmol/L', low: 3.9, high: 6.1, decimals: 2 },
    { name: '尿素', code: 'BUN', unit: 'mmol/L', low: 3.1, high: 8, decimals: 2 },
    { name: '肌酐', code: 'CREA', unit: 'μmol/L', low: 57, high: 111, decimals: 0 },
    { name: '尿酸', code: 'UA', unit: 'μmol/L', low: 208, high: 428, decimals: 0 },
    { name: '总胆固醇', code: 'TC', unit: 'mmol/L', low: 2.8, high: 5.2, decimals: 2 },
    { name: '甘油三酯', code: 'TG', unit: 'mmol/L', low: 0.56, high: 1.7, decimals: 2 },
    { name: '钾', code: 'K', unit: 'mmol/L', low: 3.5, high: 5.3, decimals: 2 },
  ],
  尿常规: [
    { name: '尿比重', code: 'SG', unit: '', low: 1.003, high: 1.03, decimals: 3 },
    { name: '酸碱度', code: 'PH', unit: '', low: 5, high: 8, decimals: 1 },
    { name: '尿蛋白', code: 'PRO', unit: '', low: NaN, high: NaN, decimals: 0 },
    { name: '尿葡萄糖', code: 'U-GLU', unit: '', low: NaN, high: NaN, decimals: 0 },
    { name: '酮体', code: 'KET', unit: '', low: NaN, high: NaN, decimals: 0 },
    { name: '尿隐血', code: 'BLD', unit: '', low: NaN, high: NaN, decimals: 0 },
    { name: '亚硝酸盐', code: 'NIT', unit: '', low: NaN, high: NaN, decimals: 0 },
  ],
};

const QUALITATIVE = ['阴性', '阴性', '阴性', '弱阳性', '1+', '2+'];

/** A report of one kind with random values (a third of them out of range), its rows as they are printed. */
export function randomReport(kind: keyof typeof REPORT_KINDS, random: () => number): ReportRow[] {
  return REPORT_KINDS[kind]!.map((a) => {
    if (Number.isNaN(a.low)) {
      const value = QUALITATIVE[Math.floor(random() * QUALITATIVE.length)]!;
      return { name: a.name, code: a.code, value, unit: a.unit, range: '阴性', flag: '' as LabFlag };
    }
    const span = a.high - a.low;
    const r = random();
    const raw =
      r < 0.17
        ? a.low - span * (0.05 + random() * 0.3)
        : r < 0.33
          ? a.high + span * (0.05 + random() * 0.5)
          : a.low + span * random();
    const value = Math.max(0, raw).toFixed(a.decimals);
    const range = `${a.low}-${a.high}`;
    return { name: a.name, code: a.code, value, unit: a.unit, range, flag: flagAgainstRange(value, range) };
  });
}
