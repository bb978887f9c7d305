/**
 * What one generated sheet prints: its hospital and patient, and its analyte rows with values drawn at random (a
 * third out of range), each spelled the way the sheet's laboratory system spells it (one unit, range and
 * qualitative style per sheet, names and codes varied row by row). The rows are the ground truth: as printed.
 */
import type { LabFlag } from '@ecrf/core';
import { PANEL_TITLES, PANELS, SCALES, UNIT_SPELLINGS, UNIT_STYLES, type Analyte, type PanelName } from './analytes.js';

/** How a CRF would hold the analyte: a number, a single choice among the scale's grades, or text. */
export type ItemKind = 'number' | 'choice' | 'text';

/** One analyte row as printed on the sheet. */
export interface TruthRow {
  /** The catalogue code of the analyte (the CRF item's code). */
  analyte: string;
  name: string;
  /** The code printed on the sheet, '' when the layout prints none. */
  code: string;
  value: string;
  unit: string;
  range: string;
  /** What the sheet flags, whatever its spelling (H, ↑, 高). */
  flag: LabFlag;
  kind: ItemKind;
  /** A choice row's grade: one of its scale's grades (the CRF option's text). */
  grade?: string;
  /** 1, or 2 on the second page of a PDF. */
  page: number;
}

export interface SheetStyle {
  /** Index into UNIT_SPELLINGS. */
  unit: number;
  /** Index into the scales' spellings. */
  qualitative: number;
  /** The dash of ranges: 3.5-9.5, 3.5~9.5, 3.5--9.5, 3.5—9.5. */
  dash: string;
  /** Bounds printed with the value's decimals (3.50-9.50). */
  padded: boolean;
  /** A range starting at 0 printed as `<21`. */
  bounds: boolean;
  /** A count per field printed with its unit in the result cell (`1-2 /HP`) instead of a unit column. */
  perFieldInValue: boolean;
}

export interface SheetContent {
  panel: PanelName;
  title: string;
  hospital: string;
  patient: { name: string; sex: string; age: string; department: string; bed: string; sample: string };
  dates: { collected: string; reported: string };
  rows: TruthRow[];
}

const HOSPITALS = ['某某市第一人民医院', '某某大学附属第二医院', '某某县人民医院', '某某市中医院', '某某区妇幼保健院'];
const PATIENTS = ['张三', '李秀英', '王建国', '刘芳', '陈静', '赵敏', '孙立军', '周晓梅'];
const DEPARTMENTS = ['骨科', '心内科', '内分泌科', '普外科', '门诊', '肾内科', '血液科'];
const SAMPLES = { 血常规: '全血', 凝血: '血浆', 尿常规: '尿液' } as Partial<Record<PanelName, string>>;
const PER_FIELD = ['0-1', '1-2', '0-2', '2-4', '3-5', '5-8', '10-15', '0-1'];

export const pick = <T>(list: readonly T[], random: () => number): T => list[Math.floor(random() * list.length)]!;

export function randomStyle(random: () => number): SheetStyle {
  return {
    unit: Math.floor(random() * UNIT_STYLES),
    qualitative: Math.floor(random() * SCALES.dipstick.ranges.length),
    dash: pick(['-', '-', '~', '--', '—'], random),
    padded: random() < 0.3,
    bounds: random() < 0.5,
    perFieldInValue: random() < 0.5,
  };
}

const unitOf = (a: Analyte, style: SheetStyle) => UNIT_SPELLINGS[a.unit]?.[style.unit] ?? a.unit;

function numberRow(a: Analyte, style: SheetStyle, random: () => number) {
  const [low, high, decimals] = [a.low!, a.high!, a.decimals!];
  const span = high - low;
  const r = random();
  let v: number;
  if (a.bound === '<') v = r < 0.3 ? high * (1.1 + random() * 2) : high * random() * 0.95;
  else if (a.bound === '>') v = r < 0.3 ? low * (0.5 + random() * 0.45) : low + span * (0.05 + random());
  else if (r < 0.17) v = low - span * (0.05 + random() * 0.3);
  else if (r < 0.33) v = high + span * (0.05 + random() * 0.5);
  else v = low + span * random();
  const value = Math.max(0, v).toFixed(decimals);
  const num = Number(value);
  const fmt = (x: number) => (style.padded ? x.toFixed(decimals) : String(x));
  let range: string;
  let flag: LabFlag = '';
  if (a.bound === '>') {
    range = `>${fmt(low)}`;
    if (num <= low) flag = '↓';
  } else if (a.bound === '<' || (low === 0 && style.bounds)) {
    range = `<${fmt(high)}`;
    if (num >= high) flag = '↑';
  } else {
    range = `${fmt(low)}${style.dash}${fmt(high)}`;
    flag = num < low ? '↓' : num > high ? '↑' : '';
  }
  return { value, unit: unitOf(a, style), range, flag, kind: 'number' as const };
}

function scaleRow(a: Analyte, style: SheetStyle, random: () => number) {
  const scale = SCALES[a.scale!];
  const grade = random() < 0.6 ? 0 : 1 + Math.floor(random() * (scale.grades.length - 1));
  return {
    value: scale.spellings[grade]![style.qualitative]!,
    unit: '',
    range: scale.ranges[style.qualitative]!,
    flag: (grade > 0 ? '↑' : '') as LabFlag,
    kind: 'choice' as const,
    grade: scale.grades[grade]!,
  };
}

function perFieldRow(a: Analyte, style: SheetStyle, random: () => number) {
  const { unit, high } = a.perField!;
  const value = random() < 0.1 ? '未见' : pick(PER_FIELD, random);
  const top = Number(value.split('-')[1] ?? 0);
  return {
    value: style.perFieldInValue && value !== '未见' ? `${value} ${unit}` : value,
    unit: style.perFieldInValue ? '' : unit,
    range: style.perFieldInValue ? `0-${high} ${unit}` : `0-${high}`,
    flag: (top > high ? '↑' : '') as LabFlag,
    kind: 'text' as const,
  };
}

/** One analyte's printed row (page 1; the layout sets the code it prints and the page). */
export function analyteRow(a: Analyte, style: SheetStyle, random: () => number): TruthRow {
  const name = random() < 0.55 ? a.names[0]! : pick(a.names, random);
  const code = a.codes && random() < 0.25 ? pick(a.codes, random) : a.code;
  const printed = a.scale
    ? scaleRow(a, style, random)
    : a.perField
      ? perFieldRow(a, style, random)
      : a.texts
        ? {
            value: pick(a.texts, random),
            unit: '',
            range: a.textRange ?? '',
            flag: '' as LabFlag,
            kind: 'text' as const,
          }
        : numberRow(a, style, random);
  return { analyte: a.code, name, code, page: 1, ...printed };
}

/** Up to `count` analytes of the panels, in the panels' order (a random selection when there are more). */
export function panelRows(panels: readonly PanelName[], count: number, style: SheetStyle, random: () => number) {
  const all: Analyte[] = panels.flatMap((p) => [...(PANELS[p] as readonly Analyte[])]);
  const keep = new Set<number>(all.map((_, i) => i));
  while (keep.size > count) keep.delete([...keep][Math.floor(random() * keep.size)]!);
  return all.filter((_, i) => keep.has(i)).map((a) => analyteRow(a, style, random));
}

const two = (n: number) => String(n).padStart(2, '0');

/** A sheet of the panels with at most `count` rows. */
export function sheetContent(
  panels: readonly PanelName[],
  count: number,
  style: SheetStyle,
  random: () => number,
): SheetContent {
  const panel = panels[0]!;
  const month = 1 + Math.floor(random() * 12);
  const day = 1 + Math.floor(random() * 28);
  const hour = 7 + Math.floor(random() * 4);
  const date = `2026-${two(month)}-${two(day)}`;
  return {
    panel,
    title: panels.length > 1 ? '生化检验报告单' : pick(PANEL_TITLES[panel], random),
    hospital: pick(HOSPITALS, random),
    patient: {
      name: pick(PATIENTS, random),
      sex: random() < 0.5 ? '男' : '女',
      age: `${18 + Math.floor(random() * 70)}岁`,
      department: pick(DEPARTMENTS, random),
      bed: String(1 + Math.floor(random() * 40)),
      sample: SAMPLES[panel] ?? '血清',
    },
    dates: {
      collected: `${date} ${two(hour)}:${two(Math.floor(random() * 60))}`,
      reported: `${date} ${two(hour + 3)}:${two(Math.floor(random() * 60))}`,
    },
    rows: panelRows(panels, count, style, random),
  };
}
