/**
 * Draws one page of a lab sheet in its layout onto a 2D context (a canvas, or a PDF page scaled to it): the
 * hospital's header and patient details, the table of analytes, the signatures. Answers the rows as printed on it.
 */
import type { PDFDocument } from '@napi-rs/canvas';
import type { LabFlag } from '@ecrf/core';
import type { SheetContent, TruthRow } from './content.js';
import { tableArea, type Column, type FlagStyle, type Layout } from './layouts.js';

/** A canvas's context or a PDF page's (the canvas's extends it). */
type Ctx = ReturnType<PDFDocument['beginPage']>;

const INK = '#161616';
const LEFT = 70;

export function flagText(flag: LabFlag, style: FlagStyle): string {
  if (!flag) return '';
  if (style === 'letter') return flag === '↑' ? 'H' : 'L';
  if (style === 'chinese') return flag === '↑' ? '高' : '低';
  return flag;
}

function cell(column: Column, row: TruthRow, index: number, flags: FlagStyle): string {
  switch (column.key) {
    case 'seq':
      return String(index + 1);
    case 'code':
      return row.code;
    case 'name':
      return row.name;
    case 'nameCode':
      return `${row.name}(${row.code})`;
    case 'value':
      return row.value;
    case 'valueFlag':
      return row.value + flagText(row.flag, flags);
    case 'flag':
      return flagText(row.flag, flags);
    case 'unit':
      return row.unit;
    case 'range':
      return row.range;
  }
}

function rule(g: Ctx, x0: number, y0: number, x1: number, y1: number, width = 2) {
  g.lineWidth = width;
  g.beginPath();
  g.moveTo(x0, y0);
  g.lineTo(x1, y1);
  g.stroke();
}

function header(g: Ctx, layout: Layout, content: SheetContent, family: string, width: number) {
  const p = content.patient;
  const title = /报告/.test(content.title) ? content.title : `${content.title}检验报告单`;
  g.textBaseline = 'alphabetic';
  if (layout.header === 'centred') {
    g.textAlign = 'center';
    g.font = `46px "${family}"`;
    g.fillText(content.hospital, width / 2, 78);
    g.font = `36px "${family}"`;
    g.fillText(title, width / 2, 132);
    g.textAlign = 'left';
    g.font = `25px "${family}"`;
    g.fillText(
      `姓名：${p.name}    性别：${p.sex}    年龄：${p.age}    科室：${p.department}    床号：${p.bed}`,
      LEFT,
      192,
    );
    g.fillText(`标本类型：${p.sample}    采样时间：${content.dates.collected}    条码号：1120${p.bed}0031`, LEFT, 232);
    return;
  }
  g.textAlign = 'left';
  g.font = `40px "${family}"`;
  g.fillText(content.hospital, LEFT, 74);
  g.textAlign = 'right';
  g.font = `34px "${family}"`;
  g.fillText(title, width - LEFT, 74);
  g.textAlign = 'left';
  g.font = `24px "${family}"`;
  const cells = [
    [`姓名：${p.name}`, `性别：${p.sex}`, `年龄：${p.age}`, `科室：${p.department}`],
    [`床号：${p.bed}`, `标本：${p.sample}`, `采样：${content.dates.collected}`, `病历号：00${p.bed}731`],
  ];
  const w = (width - 2 * LEFT) / 4;
  cells.forEach((line, r) => {
    line.forEach((text, c) => g.fillText(text, LEFT + 12 + c * w, 148 + r * 52));
  });
  for (let r = 0; r <= 2; r++) rule(g, LEFT, 110 + r * 52, width - LEFT, 110 + r * 52, 1.5);
  for (let c = 0; c <= 4; c++) rule(g, LEFT + c * w, 110, LEFT + c * w, 214, 1.5);
}

/** Draws one table of rows between x0 and x1 from y `top`; answers the rows as printed (code '' when none). */
function table(
  g: Ctx,
  layout: Layout,
  rows: readonly TruthRow[],
  first: number,
  flags: FlagStyle,
  family: string,
  x0: number,
  x1: number,
  top: number,
) {
  const width = x1 - x0;
  const h = layout.rowHeight;
  const headerY = top + h * 0.7;
  const bodyTop = top + h * 1.4;
  const end = bodyTop + rows.length * h;
  const xs = layout.columns.map((c) => x0 + c.at * width);
  if (layout.shade) {
    g.fillStyle = '#e9e9e9';
    rows.forEach((_, j) => {
      if (j % 2 === 1) g.fillRect(x0, bodyTop + j * h, width, h);
    });
  }
  g.fillStyle = INK;
  g.strokeStyle = INK;
  g.font = `${layout.fontSize}px "${family}"`;
  g.textBaseline = 'middle';
  g.textAlign = 'left';
  layout.columns.forEach((c, i) => g.fillText(c.header, xs[i]! + 8, headerY));
  if (layout.rules !== 'none') rule(g, x0, top, x1, top, 2.5);
  rule(g, x0, bodyTop - 4, x1, bodyTop - 4, layout.rules === 'none' ? 1.5 : 2);
  if (layout.rules !== 'none') rule(g, x0, end + 4, x1, end + 4, 2.5);
  if (layout.rules === 'grid') {
    rows.forEach((_, j) => rule(g, x0, bodyTop + (j + 1) * h, x1, bodyTop + (j + 1) * h, 1));
    [...xs, x1].forEach((x) => rule(g, x, top, x, end + 4, 1.2));
  }
  const printsCode = layout.columns.some((c) => c.key === 'code' || c.key === 'nameCode');
  return rows.map((row, j) => {
    const y = bodyTop + j * h + h / 2;
    layout.columns.forEach((c, i) => {
      const text = cell(c, row, first + j, flags);
      if (text) g.fillText(text, xs[i]! + 8, y);
    });
    return printsCode ? row : { ...row, code: '' };
  });
}

/** Draws one page of the sheet (the page's rows in content.rows); answers its rows as printed. */
export function drawPage(
  g: Ctx,
  layout: Layout,
  content: SheetContent,
  family: string,
  flags: FlagStyle,
  page = 1,
): TruthRow[] {
  const { width, height, top } = tableArea(layout);
  g.fillStyle = '#ffffff';
  g.fillRect(0, 0, width, height);
  g.fillStyle = INK;
  g.strokeStyle = INK;
  header(g, layout, content, family, width);
  const rows = content.rows;
  let printed: TruthRow[];
  if (layout.twoColumn) {
    const half = Math.ceil(rows.length / 2);
    const mid = width / 2;
    printed = [
      ...table(g, layout, rows.slice(0, half), 0, flags, family, LEFT - 20, mid - 16, top),
      ...table(g, layout, rows.slice(half), half, flags, family, mid + 16, width - LEFT + 20, top),
    ];
  } else {
    printed = table(g, layout, rows, 0, flags, family, LEFT - 20, width - LEFT + 20, top);
  }
  const foot = height - 90;
  g.textBaseline = 'alphabetic';
  g.textAlign = 'left';
  g.font = `24px "${family}"`;
  g.fillText(`检验者：李四    审核者：王五    报告时间：${content.dates.reported}`, LEFT, foot);
  g.font = `21px "${family}"`;
  g.fillText('*本报告仅对所检标本负责，如有疑问请于三日内与检验科联系', LEFT, foot + 40);
  if (layout.secondPage) {
    g.textAlign = 'right';
    g.fillText(`第 ${page} 页 共 2 页`, width - LEFT, foot + 40);
  }
  return printed.map((r) => ({ ...r, page }));
}
