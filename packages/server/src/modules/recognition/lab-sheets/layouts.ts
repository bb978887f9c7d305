/**
 * The sheet layouts, modelled on the reports Chinese laboratory systems print: which columns in which order, how
 * the flag is printed, the rules and shading, the page (A5 landscape or A4 portrait at 200 dpi) and the panels
 * each prints. Two layouts (`bracket-code`, `two-column-numbered`) appear only in the holdout set (sets.ts).
 */
import type { PanelName } from './analytes.js';

export type ColumnKey = 'seq' | 'code' | 'name' | 'nameCode' | 'value' | 'valueFlag' | 'flag' | 'unit' | 'range';

export interface Column {
  key: ColumnKey;
  header: string;
  /** Left edge as a share of the table's width. */
  at: number;
}

/** The flag as printed: ↑/↓, H/L or 高/低. */
export type FlagStyle = 'arrow' | 'letter' | 'chinese';

export interface Layout {
  id: LayoutId;
  /** What the layout is, for the README and the bench's listing. */
  about: string;
  page: 'a5' | 'a4';
  panels: readonly (readonly PanelName[])[];
  columns: readonly Column[];
  flags: FlagStyle | 'either';
  /** lines: rules above and below the header and at the end; grid: every row and column boxed; none: one rule. */
  rules: 'lines' | 'grid' | 'none';
  shade?: boolean;
  header: 'centred' | 'boxed';
  twoColumn?: boolean;
  fontSize: number;
  rowHeight: number;
  /** A two-page PDF: the second page's panels. */
  secondPage?: readonly PanelName[];
}

export const PAGE_SIZES = { a5: [1654, 1169], a4: [1654, 2339] } as const;

const BLOOD: readonly (readonly PanelName[])[] = [
  ['血常规'],
  ['肝功'],
  ['肾功', '电解质'],
  ['血脂', '心肌酶'],
  ['凝血'],
];
const CHEMISTRY: readonly (readonly PanelName[])[] = [
  ['肝功', '肾功', '血脂'],
  ['肝功', '肾功', '电解质'],
  ['肾功', '电解质', '血脂', '心肌酶'],
  ['血常规'],
];
const col = (key: ColumnKey, header: string, at: number): Column => ({ key, header, at });

export const LAYOUTS = {
  'ruled-code': {
    about: '(a) classic ruled table with a code column: 项目名称 代码 结果 提示 单位 参考范围',
    page: 'a5',
    panels: BLOOD,
    columns: [
      col('name', '项目名称', 0),
      col('code', '代码', 0.31),
      col('value', '结果', 0.44),
      col('flag', '提示', 0.56),
      col('unit', '单位', 0.62),
      col('range', '参考范围', 0.8),
    ],
    flags: 'arrow',
    rules: 'lines',
    header: 'centred',
    fontSize: 26,
    rowHeight: 44,
  },
  'ruled-plain': {
    about: '(b) ruled table without codes, H/L in a column of its own',
    page: 'a5',
    panels: BLOOD,
    columns: [
      col('name', '检验项目', 0),
      col('value', '结果', 0.37),
      col('flag', '', 0.5),
      col('unit', '单位', 0.57),
      col('range', '参考值', 0.78),
    ],
    flags: 'letter',
    rules: 'lines',
    header: 'centred',
    fontSize: 27,
    rowHeight: 46,
  },
  'code-first': {
    about: '(c) the code first: WBC 白细胞计数 6.52 10^9/L 3.5-9.5, flag letters at the end',
    page: 'a5',
    panels: BLOOD,
    columns: [
      col('code', '代号', 0),
      col('name', '项目', 0.12),
      col('value', '结果', 0.45),
      col('unit', '单位', 0.59),
      col('range', '参考区间', 0.76),
      col('flag', '提示', 0.94),
    ],
    flags: 'letter',
    rules: 'lines',
    header: 'boxed',
    fontSize: 25,
    rowHeight: 42,
  },
  'two-column': {
    about: '(d) 双栏: two tables side by side, each with 项目/结果/单位/参考值 headers',
    page: 'a5',
    panels: CHEMISTRY,
    columns: [
      col('name', '项目', 0),
      col('value', '结果', 0.43),
      col('flag', '', 0.57),
      col('unit', '单位', 0.62),
      col('range', '参考值', 0.8),
    ],
    flags: 'arrow',
    rules: 'lines',
    header: 'centred',
    twoColumn: true,
    fontSize: 22,
    rowHeight: 40,
  },
  numbered: {
    about: '(e) a sequence number first: 1 白细胞计数 …, flag before the unit',
    page: 'a4',
    panels: [['血常规'], ['肝功', '肾功'], ['电解质', '血脂'], ['凝血', '心肌酶']],
    columns: [
      col('seq', '序号', 0),
      col('name', '项目名称', 0.06),
      col('value', '结果', 0.39),
      col('flag', '提示', 0.51),
      col('unit', '单位', 0.58),
      col('range', '参考区间', 0.78),
    ],
    flags: 'arrow',
    rules: 'lines',
    header: 'centred',
    fontSize: 28,
    rowHeight: 52,
  },
  'glued-flag': {
    about: '(f) the flag glued to the value: 6.52↑ or 6.52H',
    page: 'a5',
    panels: BLOOD,
    columns: [
      col('name', '项目名称', 0),
      col('code', '英文名称', 0.32),
      col('valueFlag', '结果', 0.46),
      col('unit', '单位', 0.62),
      col('range', '参考范围', 0.8),
    ],
    flags: 'either',
    rules: 'lines',
    header: 'centred',
    fontSize: 26,
    rowHeight: 44,
  },
  'range-first': {
    about: '(g) the reference range before the unit',
    page: 'a5',
    panels: BLOOD,
    columns: [
      col('name', '检验项目', 0),
      col('value', '检验结果', 0.36),
      col('flag', '提示', 0.5),
      col('range', '参考范围', 0.57),
      col('unit', '单位', 0.8),
    ],
    flags: 'arrow',
    rules: 'lines',
    header: 'boxed',
    fontSize: 26,
    rowHeight: 44,
  },
  'boxed-grid': {
    about: '(h) a boxed grid: vertical rules, light grey shading of every other row, 高/低 flags',
    page: 'a4',
    panels: BLOOD,
    columns: [
      col('seq', 'No', 0),
      col('name', '项目', 0.05),
      col('code', '缩写', 0.36),
      col('value', '结果', 0.49),
      col('flag', '标志', 0.62),
      col('unit', '单位', 0.69),
      col('range', '参考值', 0.83),
    ],
    flags: 'chinese',
    rules: 'grid',
    shade: true,
    header: 'boxed',
    fontSize: 27,
    rowHeight: 50,
  },
  urine: {
    about: '(i) 尿常规: qualitative rows (阴性(-), +-, 1+), counts per field (1-2 /HP, 0-3 /HP)',
    page: 'a5',
    panels: [['尿常规']],
    columns: [
      col('name', '项目名称', 0),
      col('code', '代码', 0.26),
      col('value', '结果', 0.39),
      col('flag', '提示', 0.55),
      col('unit', '单位', 0.61),
      col('range', '参考值', 0.75),
    ],
    flags: 'arrow',
    rules: 'lines',
    header: 'centred',
    fontSize: 25,
    rowHeight: 42,
  },
  'pdf-two-page': {
    about: '(j) a two-page PDF with text drawn in the font (as a laboratory system issues it): 血常规, then 生化',
    page: 'a4',
    panels: [['血常规']],
    secondPage: ['肝功', '肾功'],
    columns: [
      col('name', '项目名称', 0),
      col('code', '代码', 0.31),
      col('value', '结果', 0.44),
      col('flag', '提示', 0.56),
      col('unit', '单位', 0.62),
      col('range', '参考范围', 0.8),
    ],
    flags: 'arrow',
    rules: 'lines',
    header: 'centred',
    fontSize: 28,
    rowHeight: 52,
  },
  'bracket-code': {
    about: '(k, holdout only) the code in brackets after the name, 白细胞计数(WBC), no rules between rows',
    page: 'a5',
    panels: BLOOD,
    columns: [
      col('nameCode', '检验项目', 0),
      col('value', '结果', 0.42),
      col('flag', '', 0.55),
      col('unit', '单位', 0.61),
      col('range', '生物参考区间', 0.79),
    ],
    flags: 'letter',
    rules: 'none',
    header: 'boxed',
    fontSize: 26,
    rowHeight: 45,
  },
  'two-column-numbered': {
    about: '(l, holdout only) 双栏 with sequence numbers and flags glued to values',
    page: 'a4',
    panels: CHEMISTRY,
    columns: [
      col('seq', 'No', 0),
      col('name', '项目', 0.07),
      col('valueFlag', '结果', 0.46),
      col('unit', '单位', 0.61),
      col('range', '参考范围', 0.79),
    ],
    flags: 'arrow',
    rules: 'lines',
    header: 'boxed',
    twoColumn: true,
    fontSize: 23,
    rowHeight: 46,
  },
} as const satisfies Record<string, Omit<Layout, 'id'>>;
export type LayoutId = keyof typeof LAYOUTS;

export const layoutOf = (id: LayoutId): Layout => ({ id, ...LAYOUTS[id] });

/** Where the table starts and ends on the page, and how many rows fit. */
export function tableArea(layout: Layout) {
  const [width, height] = PAGE_SIZES[layout.page];
  const top = layout.header === 'boxed' ? 330 : 300;
  const bottom = height - 130;
  const perColumn = Math.floor((bottom - top - layout.rowHeight * 1.4) / layout.rowHeight);
  return { width, height, top, bottom, capacity: perColumn * (layout.twoColumn ? 2 : 1) };
}
