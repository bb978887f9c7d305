import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CrfDefinition, CrfNode, ItemOption } from '../crf-definition.schema.js';
import { isRowType } from '../crf-definition.schema.js';
import { additionKey, evaluateForm, getCompiledForm, unitKey } from '../evaluate-form.js';
import { changedItemNames, sameValue } from '../record-values.js';
import { keepInertValues } from './inert-values.js';
import type { AmendmentRecord, MigrationOptions, PlannedChange } from './amendment-types.js';
import { migrationContext } from './value-judgement.js';
import {
  buildImpactReport,
  changesStoredValue,
  MIGRATION_MSG,
  migrateRecordValues,
  planRecordMigration,
} from './plan-migration.js';

/**
 * For generated pairs of form versions (items added, removed, retyped; new skip logic, bounds, reference ranges,
 * units, additions, calculations; a list group whose columns change alike) and generated records, the impact report
 * predicts exactly what the migration does, every stored difference is one reported change, and the migrated record
 * is what a save of its values under the new version stores (but for the inert and the unconvertible values).
 */

const TYPES = ['input', 'int', 'real', 'radio', 'checkbox', 'multiSelect', 'slider', 'date', 'textarea'] as const;
const COLUMN_TYPES = ['input', 'int', 'real', 'radio'] as const;
type SlotType = (typeof TYPES)[number];

interface Version {
  present: boolean;
  type: SlotType;
  showIf: { ref: number; mode: number } | null;
  bounds: [number, number] | null;
  calc: number | null;
  ref: boolean;
  units: string | null;
  addition: boolean;
  sliderMax: number;
}
const FIELDS = ['present', 'type', 'showIf', 'bounds', 'calc', 'ref', 'units', 'addition', 'sliderMax'] as const;

const versionArb = (types: readonly SlotType[]): fc.Arbitrary<Version> =>
  fc.record({
    present: fc.oneof({ arbitrary: fc.constant(true), weight: 4 }, { arbitrary: fc.constant(false), weight: 1 }),
    type: fc.constantFrom(...types),
    showIf: fc.option(fc.record({ ref: fc.nat(20), mode: fc.nat(3) }), { nil: null }),
    bounds: fc.option(fc.tuple(fc.integer({ min: -5, max: 10 }), fc.integer({ min: 0, max: 150 })), { nil: null }),
    calc: fc.option(fc.nat(20), { nil: null }),
    ref: fc.boolean(),
    units: fc.constantFrom(null, 'kg', 'kg,g'),
    addition: fc.boolean(),
    sliderMax: fc.constantFrom(5, 10),
  });

/** A slot's two versions: the old, and the new as the old with some fields taken from another draw. */
const slotArb = (types: readonly SlotType[]) =>
  fc
    .tuple(versionArb(types), versionArb(types), fc.uniqueArray(fc.constantFrom(...FIELDS), { maxLength: 3 }))
    .map(([from, other, fields]) => {
      const to: Version = { ...from };
      for (const field of fields) (to as unknown as Record<string, unknown>)[field] = other[field];
      return { from, to };
    });

const NUMERIC = new Set<string>(['int', 'real', 'slider']);
const CHOICE = new Set<string>(['radio', 'checkbox', 'multiSelect']);

function condition(target: { name: string; type: string }, mode: number): string {
  if (mode === 3) return `not isblank(${target.name})`;
  if (NUMERIC.has(target.type)) return `${target.name} > 3`;
  if (target.type === 'radio') return `${target.name} == "1"`;
  if (target.type === 'checkbox') return `checked(${target.name}, "1") == 1`;
  return `not isblank(${target.name})`;
}

function nodeOf(name: string, v: Version, earlier: ReadonlyArray<{ name: string; type: string }>): CrfNode {
  const option: ItemOption = {};
  if (CHOICE.has(v.type)) {
    Object.assign(option, { optionsValue: '1,2,3', optionsText: '甲,乙,其他' });
    if (v.addition) Object.assign(option, { addition: '请注明', additionIndex: '2' });
  }
  if (v.type === 'int' || v.type === 'real') {
    if (v.bounds) option.validate = { min: v.bounds[0], max: v.bounds[0] + v.bounds[1] };
    if (v.units) option.units = v.units;
    if (v.ref) Object.assign(option, { refValueMaleMin: 2, refValueMaleMax: 100, refValueFemaleMax: 50 });
    if (v.calc !== null) {
      const numbers = earlier.filter((e) => NUMERIC.has(e.type));
      option.calc = numbers.length > 0 ? `${numbers[v.calc % numbers.length]!.name} * 2 + 1` : '2 + 3';
    }
  }
  if (v.type === 'slider') Object.assign(option, { valueMin: 0, valueMax: v.sliderMax, valueStep: 1 });
  if (v.showIf && earlier.length > 0) option.showIf = condition(earlier[v.showIf.ref % earlier.length]!, v.showIf.mode);
  return { name, title: `题目${name}`, type: v.type, option, children: [] };
}

interface Pair {
  slots: Array<{ from: Version; to: Version }>;
  columns: Array<{ from: Version; to: Version }>;
  list: { from: Version; to: Version };
}

function build(pair: Pair, side: 'from' | 'to'): CrfDefinition {
  const earlier: Array<{ name: string; type: string }> = [];
  const children: CrfNode[] = [];
  pair.slots.forEach((slot, i) => {
    const v = slot[side];
    if (!v.present) return;
    children.push(nodeOf(`s${i}`, v, earlier));
    earlier.push({ name: `s${i}`, type: v.type });
  });
  const columns: CrfNode[] = [];
  const earlierColumns: Array<{ name: string; type: string }> = [];
  pair.columns.forEach((column, i) => {
    const v = column[side];
    if (!v.present) return;
    columns.push(nodeOf(`c${i}`, { ...v, ref: false, units: null }, earlierColumns));
    earlierColumns.push({ name: `c${i}`, type: v.type });
  });
  const list = pair.list[side];
  const listOption: ItemOption =
    list.showIf && earlier.length > 0 ? { showIf: condition(earlier[list.showIf.ref % earlier.length]!, 3) } : {};
  children.push({ name: 'L', title: '列表', type: 'listGroup', option: listOption, children: columns });
  return { title: '表单', option: {}, children };
}

const pairArb: fc.Arbitrary<Pair> = fc.record({
  slots: fc.array(slotArb(TYPES), { minLength: 2, maxLength: 7 }),
  columns: fc.array(slotArb(COLUMN_TYPES), { minLength: 1, maxLength: 3 }),
  list: slotArb(['input']),
});

const VALUE_POOL: unknown[] = [
  '',
  '1',
  '2',
  '3',
  '5',
  '12',
  '150',
  '-3',
  '3.5',
  'abc',
  '轻度',
  5,
  12,
  ['1', '2'],
  ['3'],
  '1,2',
  '2024-01-01',
  '2024-13-45',
  '["1","2"]',
  null,
];
const valueArb = fc.constantFrom(...VALUE_POOL);
const cellsArb = fc.record(
  { c0: valueArb, c1: valueArb, c2: valueArb, c0_addition: fc.constant('注'), gone: fc.constantFrom('x', '') },
  { requiredKeys: [] },
);
const valuesArb: fc.Arbitrary<Record<string, unknown>> = fc
  .tuple(
    fc.array(fc.option(valueArb, { nil: undefined }), { minLength: 7, maxLength: 7 }),
    fc.array(fc.constantFrom('kg', 'g', 'lb', undefined), { minLength: 7, maxLength: 7 }),
    fc.array(fc.boolean(), { minLength: 7, maxLength: 7 }),
    fc.option(fc.array(cellsArb, { maxLength: 3 }), { nil: undefined }),
    fc.option(fc.constantFrom('旧值', ''), { nil: undefined }),
  )
  .map(([items, units, additions, rows, stray]) => {
    const out: Record<string, unknown> = {};
    items.forEach((value, i) => {
      if (value !== undefined) out[`s${i}`] = value;
      if (units[i] !== undefined) out[unitKey(`s${i}`)] = units[i];
      if (additions[i]) out[additionKey(`s${i}`)] = '回族';
    });
    if (rows !== undefined) out.L = rows;
    if (stray !== undefined) out.old_item = stray;
    return out;
  });

const recordArb: fc.Arbitrary<AmendmentRecord> = fc.record({
  id: fc.nat(),
  values: valuesArb,
  submitted: fc.boolean(),
  signed: fc.boolean(),
  sdvVerified: fc.boolean(),
  locked: fc.boolean(),
  gender: fc.constantFrom('male' as const, 'female' as const, null),
});

const options: MigrationOptions = { today: '2024-06-15', timeZone: 'Asia/Shanghai' };

/** Strict structural equality: the same keys, the same scalars (a key holding undefined is a key). */
function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return (
    ka.length === kb.length &&
    ka.every(
      (k) => Object.hasOwn(b, k) && deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]),
    )
  );
}

const clone = <T>(value: T): T => structuredClone(value);

/** The stored values with the value-changing changes applied: must be exactly what the migration stores. */
function applyChanges(values: Record<string, unknown>, changes: readonly PlannedChange[]): Record<string, unknown> {
  const out = clone(values);
  const put = (target: Record<string, unknown>, key: string, value: unknown) => {
    if (value === undefined) delete target[key];
    else target[key] = value;
  };
  for (const change of changes.filter(changesStoredValue)) {
    if (change.container === undefined) put(out, change.itemName, change.newValue);
    else put((out[change.container] as Array<Record<string, unknown>>)[change.row!]!, change.itemName, change.newValue);
  }
  return out;
}

const valueAt = (values: Record<string, unknown>, change: PlannedChange) =>
  change.container === undefined
    ? values[change.itemName]
    : (values[change.container] as Array<Record<string, unknown>> | undefined)?.[change.row!]?.[change.itemName];

const keptLossy = (c: PlannedChange) =>
  c.kind === 'invalid' && (c.message === MIGRATION_MSG.lossyShape || Boolean(c.message?.endsWith('保留原值')));

describe('CRF amendment: the impact report predicts the migration (property)', () => {
  it('for generated form pairs and records: predicted changes are the changes applied, valuesChange is inequality', () => {
    fc.assert(
      fc.property(pairArb, fc.array(recordArb, { minLength: 1, maxLength: 4 }), (pair, records) => {
        const from = build(pair, 'from');
        const to = build(pair, 'to');
        getCompiledForm(from);
        getCompiledForm(to);
        const report = buildImpactReport(from, to, records, options);
        let total = 0;
        records.forEach((record, index) => {
          const migrated = migrateRecordValues(from, to, record.values, options, record);
          const predicted = report.perRecord[index]!;
          expect(predicted).toEqual(planRecordMigration(from, to, record, options));
          expect(predicted.changes).toEqual(migrated.changes);
          expect(predicted.valuesChange).toBe(!deepEqual(record.values, migrated.values));
          expect(predicted.willMove).toBe(!record.locked);
          // Every stored difference is one reported change, and nothing else is.
          expect(applyChanges(record.values, migrated.changes)).toEqual(migrated.values);
          expect(deepEqual(applyChanges(record.values, migrated.changes), migrated.values)).toBe(true);
          for (const change of migrated.changes) {
            expect(valueAt(record.values, change)).toEqual(change.oldValue);
            expect(valueAt(migrated.values, change)).toEqual(change.newValue);
            if (changesStoredValue(change)) expect(sameValue(change.oldValue, change.newValue)).toBe(false);
          }
          total += migrated.changes.length;
        });
        expect(report.findings.reduce((n, f) => n + f.count, 0)).toBe(total);
        expect(report.records.changed).toBe(report.perRecord.filter((r) => r.valuesChange).length);
      }),
    );
  });

  it('a migrated record is what a save of its values under the new version stores, and saving it again changes nothing', () => {
    fc.assert(
      fc.property(pairArb, recordArb, (pair, record) => {
        const from = build(pair, 'from');
        const to = build(pair, 'to');
        const { values, changes } = migrateRecordValues(from, to, record.values, options, record);
        const saved = evaluateForm(to, record.values, migrationContext(options, record)).values;
        const compiled = getCompiledForm(to);
        const lossy = changes.filter(keptLossy);
        const isLossy = (name: string, container?: string, row?: number) =>
          lossy.some((c) => c.itemName === name && c.container === container && c.row === row);
        const known = new Set<string>();
        for (const info of compiled.nodes) {
          if (info.rowOwner || !info.node.name) continue;
          const name = info.node.name;
          for (const key of [name, additionKey(name), unitKey(name)]) known.add(key);
          const rowsIn = record.values[name];
          const rowsOut = values[name];
          if (isRowType(info.node.type) && Array.isArray(rowsIn) && Array.isArray(rowsOut)) {
            const columns = compiled.nodes.filter((n) => n.rowOwner === info).map((n) => n.node.name);
            const cells = new Set(columns.flatMap((c) => [c, additionKey(c), unitKey(c)]));
            (rowsOut as Array<Record<string, unknown>>).forEach((row, i) => {
              const stored = (rowsIn as Array<Record<string, unknown>>)[i]!;
              const savedRow = (saved[name] as Array<Record<string, unknown>>)[i]!;
              for (const key of new Set([...Object.keys(row), ...Object.keys(stored), ...cells])) {
                if (!cells.has(key) || isLossy(key, name, i)) expect(row[key]).toEqual(stored[key]);
                else expect(sameValue(row[key], savedRow[key])).toBe(true);
              }
            });
          } else if (isLossy(name)) expect(values[name]).toEqual(record.values[name]);
          else {
            for (const key of [name, additionKey(name), unitKey(name)]) {
              expect(sameValue(values[key], saved[key])).toBe(true);
            }
          }
        }
        for (const key of Object.keys(record.values)) {
          if (!known.has(key)) expect(values[key]).toEqual(record.values[key]);
        }

        // A save of the migrated record, its inert values kept, changes only a value kept because it could not convert.
        const resaved = keepInertValues(to, values, evaluateForm(to, values, migrationContext(options, record)).values);
        for (const key of changedItemNames(values, resaved)) {
          expect(lossy.some((c) => c.itemName === key || c.container === key)).toBe(true);
        }
        // Saved again under the new version, only a value kept because it could not convert would change.
        const again = migrateRecordValues(to, to, values, options, record);
        const where = (c: PlannedChange) => `${c.container ?? ''}[${c.row ?? ''}]${c.itemName}`;
        const kept = new Set(lossy.map(where));
        for (const change of again.changes.filter(changesStoredValue)) expect(kept.has(where(change))).toBe(true);
      }),
    );
  });
});
