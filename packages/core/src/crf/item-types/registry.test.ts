import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ITEM_TYPES,
  isChoiceType,
  isContainerType,
  isDateType,
  isNumericType,
  isRowType,
  isValueType,
  type CrfNode,
  type ItemType,
} from '../crf-definition.schema.js';
import { ITEM_TYPE_LABELS } from '../item-type-labels.js';
import { normalizeValue } from '../value-shapes.js';
import { searchKindOf } from '../../search.js';
import { ITEM_TYPE_REGISTRY, impliedRules, itemTypeOf } from './registry.js';

const node = (type: ItemType, option: CrfNode['option'] = {}, children: CrfNode[] = []): CrfNode => ({
  id: `n_${type}`,
  name: `n_${type}`,
  title: type,
  type,
  option,
  children,
});

describe('the item-type registry', () => {
  it('registers every item type once, under its own name, with a label of its own', () => {
    expect(Object.keys(ITEM_TYPE_REGISTRY).sort()).toEqual([...ITEM_TYPES].sort());
    for (const [type, definition] of Object.entries(ITEM_TYPE_REGISTRY)) expect(definition.type).toBe(type);
    const labels = ITEM_TYPES.map((type) => ITEM_TYPE_LABELS[type]);
    expect(new Set(labels).size).toBe(ITEM_TYPES.length);
  });

  it("agrees with the format's type families: containers, rows, values, choices, dates, numbers", () => {
    for (const type of ITEM_TYPES) {
      const { role, searchKind, exportKind } = itemTypeOf(type);
      expect(role === 'container', type).toBe(isContainerType(type));
      expect(role === 'rows', type).toBe(isRowType(type));
      expect(role === 'value' || role === 'rows', type).toBe(isValueType(type));
      if (isChoiceType(type)) expect(['choice', 'multiChoice']).toContain(searchKind(node(type)));
      if (isDateType(type)) expect(searchKind(node(type))).toBe('date');
      if (isNumericType(type)) expect(exportKind(node(type))).toBe('number');
    }
  });

  it('a stored value written once is written the same way again (normalize is idempotent), for every type', () => {
    const raw = fc.oneof(
      fc.string(),
      fc.integer(),
      fc.double({ noNaN: true }),
      fc.boolean(),
      fc.array(fc.string(), { maxLength: 4 }),
      fc.dictionary(fc.string({ maxLength: 4 }), fc.string({ maxLength: 4 }), { maxKeys: 3 }),
    );
    const rows = node('listGroup', {}, [
      node('input'),
      node('checkbox', { optionsValue: '1,2', optionsText: '甲,乙' }),
    ]);
    fc.assert(
      fc.property(fc.constantFrom(...ITEM_TYPES), raw, (type, value) => {
        const item = type === 'listGroup' || type === 'table' ? { ...rows, type } : node(type);
        const once = normalizeValue(item, value);
        expect(normalizeValue(item, once)).toEqual(once);
      }),
    );
  });

  it('a text input validated as a number searches as a number; a multi-line text never does', () => {
    expect(searchKindOf(node('input', { validate: { type: 'float' } }))).toBe('number');
    expect(searchKindOf(node('textarea', { validate: { type: 'float' } }))).toBe('text');
  });

  it('the spine tools imply the calculations of the items their options name, through their registrations', () => {
    const form = [node('spineCobb', { ptItem: 'cobb_pt' }), node('spineMeasure', { measureItems: { TK: 'tk_angle' } })];
    expect(impliedRules(form).map((rule) => [rule.target, rule.formula])).toEqual([
      ['cobb_pt', 'spineCobb(n_spineCobb, "pt")'],
      ['tk_angle', 'spineMeasure(n_spineMeasure, "TK")'],
    ]);
  });
});
