/**
 * Conversion between clinical units, for reference ranges written in one unit and values entered in
 * another (an item with several units gets a unit selector, forms §3). Only conversions by a known
 * factor between units of one dimension are defined; everything else (temperature, which is affine;
 * an enzyme and its mass; a spelling we do not know) has no conversion, and the caller then shows no
 * indicator rather than a wrong one.
 */

import type { ItemOption } from './crf-definition.schema.js';
import { unitsOf } from './options.js';

/** What a unit measures. Substance and mass concentration meet only through a molar mass. */
export type UnitDimension =
  | 'massConcentration'
  | 'substanceConcentration'
  | 'countConcentration'
  | 'catalyticConcentration'
  | 'mass'
  | 'length'
  | 'pressure';

export interface UnitInfo {
  dimension: UnitDimension;
  /** The unit's size in its dimension's base unit (g/L, mol/L, /L, U/L, g, m, Pa). */
  scale: number;
}

/** Superscript digits and their digits: NFKC would make `10⁹` the number 109, so they become `^9` first. */
export const SUPERSCRIPTS: Readonly<Record<string, string>> = {
  '⁰': '0',
  '¹': '1',
  '²': '2',
  '³': '3',
  '⁴': '4',
  '⁵': '5',
  '⁶': '6',
  '⁷': '7',
  '⁸': '8',
  '⁹': '9',
};

/**
 * One spelling per unit: case folded (no clinical unit differs from another by case alone once mega-
 * and peta- are left out), micro written u, full-width slash and multiplication signs unified,
 * superscript powers as ^n, spaces dropped, a leading "x" of "×10⁹/L" dropped.
 */
export function normalizeUnit(unit: string): string {
  // Superscripts first: NFKC would turn ⁹ into a plain 9 and lose the power.
  return unit
    .replace(/[⁰¹²³⁴⁵⁶⁷⁸⁹]+/g, (digits) => `^${[...digits].map((d) => SUPERSCRIPTS[d]).join('')}`)
    .normalize('NFKC')
    .replace(/[µμ]/g, 'u')
    .replace(/[×*]/g, 'x')
    .replace(/\s+/g, '')
    .toLowerCase()
    .replace(/^x(?=10)/, '');
}

const TABLE: ReadonlyArray<[UnitDimension, number, readonly string[]]> = [
  // Mass concentration, base g/L.
  ['massConcentration', 1, ['g/L', 'mg/mL']],
  ['massConcentration', 10, ['g/dL', 'g/100mL', 'g%']],
  ['massConcentration', 0.01, ['mg/dL', 'mg/100mL', 'mg%']],
  ['massConcentration', 1e-3, ['mg/L', 'μg/mL']],
  ['massConcentration', 1e-5, ['μg/dL']],
  ['massConcentration', 1e-6, ['μg/L', 'ng/mL']],
  ['massConcentration', 1e-8, ['ng/dL']],
  ['massConcentration', 1e-9, ['ng/L', 'pg/mL']],
  // Substance concentration, base mol/L.
  ['substanceConcentration', 1, ['mol/L']],
  ['substanceConcentration', 1e-3, ['mmol/L', 'μmol/mL']],
  ['substanceConcentration', 1e-6, ['μmol/L', 'nmol/mL']],
  ['substanceConcentration', 1e-9, ['nmol/L', 'pmol/mL']],
  ['substanceConcentration', 1e-12, ['pmol/L']],
  // Number concentration (blood counts), base per litre.
  ['countConcentration', 1e12, ['10^12/L', '10^6/μL', '10^6/mm^3']],
  ['countConcentration', 1e9, ['10^9/L', '10^3/μL', '10^3/mm^3', 'K/μL']],
  ['countConcentration', 1e6, ['10^6/L', '/μL', '/mm^3']],
  // Catalytic concentration (enzymes), base U/L (1 U = 1 μmol/min, so 1 μkat = 60 U).
  ['catalyticConcentration', 1, ['U/L', 'IU/L']],
  ['catalyticConcentration', 60, ['μkat/L']],
  ['catalyticConcentration', 0.06, ['nkat/L']],
  // Mass, base g.
  ['mass', 1000, ['kg', '公斤', '千克']],
  ['mass', 500, ['斤']],
  ['mass', 453.59237, ['lb']],
  ['mass', 1, ['g', '克']],
  ['mass', 1e-3, ['mg', '毫克']],
  // Length, base m.
  ['length', 1, ['m', '米']],
  ['length', 0.01, ['cm', '厘米']],
  ['length', 1e-3, ['mm', '毫米']],
  ['length', 0.0254, ['in']],
  // Pressure, base Pa (conventional millimetre of mercury and centimetre of water).
  ['pressure', 1000, ['kPa']],
  ['pressure', 133.322387415, ['mmHg']],
  ['pressure', 98.0665, ['cmH2O']],
];

const UNITS: ReadonlyMap<string, UnitInfo> = new Map(
  TABLE.flatMap(([dimension, scale, spellings]) =>
    spellings.map((spelling): [string, UnitInfo] => [normalizeUnit(spelling), { dimension, scale }]),
  ),
);

/** The unit's dimension and size, or null for a unit the table does not know. */
export function unitInfo(unit: string): UnitInfo | null {
  return UNITS.get(normalizeUnit(unit)) ?? null;
}

/** Keeps 12 significant digits: 130 g/L is 13 g/dL, not 13.000000000000002, so a bound stays a bound. */
export const roundConverted = (n: number): number => Number(n.toPrecision(12));

/**
 * The factor f with value_in_`to` = f × value_in_`from`, or null when no conversion is defined.
 * The same unit (in any spelling) is 1, known or not. Mass and substance concentration convert
 * only with a molar mass (g/mol): 1 mmol/L of glucose (180.16 g/mol) is 18.016 mg/dL.
 */
export function unitFactor(from: string, to: string, molarMass?: number | null): number | null {
  if (normalizeUnit(from) === normalizeUnit(to)) return 1;
  const a = unitInfo(from);
  const b = unitInfo(to);
  if (!a || !b) return null;
  if (a.dimension === b.dimension) return a.scale / b.scale;
  const molar = typeof molarMass === 'number' && Number.isFinite(molarMass) && molarMass > 0 ? molarMass : null;
  if (molar === null) return null;
  if (a.dimension === 'substanceConcentration' && b.dimension === 'massConcentration') {
    return (a.scale * molar) / b.scale;
  }
  if (a.dimension === 'massConcentration' && b.dimension === 'substanceConcentration') {
    return a.scale / molar / b.scale;
  }
  return null;
}

/** A quantity in another unit (12 significant digits), or null when no conversion is defined. */
export function convertQuantity(value: number, from: string, to: string, molarMass?: number | null): number | null {
  const factor = unitFactor(from, to, molarMass);
  return factor === null || !Number.isFinite(value) ? null : roundConverted(value * factor);
}

/**
 * The unit chosen in an item's unit selector (stored beside its value as `<name>_unit`) when it may stand: the item
 * offers several units (forms §3: several give a selector) and the choice is one of them. Anything else is not a
 * choice: the engine drops it and the item reads in its first unit.
 */
export function selectedUnit(option: ItemOption, stored: unknown): string | undefined {
  const units = unitsOf(option);
  return units.length > 1 && typeof stored === 'string' && units.includes(stored) ? stored : undefined;
}

/** The unit an item's value is entered and judged in: its selector's choice, else its first (or only) unit; '' without units. */
export function itemUnit(option: ItemOption, stored: unknown): string {
  return selectedUnit(option, stored) ?? unitsOf(option)[0] ?? '';
}
