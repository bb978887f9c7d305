import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CRF_MSG } from '../crf-messages.js';
import type { CrfDefinition, CrfNode, ItemOption } from '../crf-definition.schema.js';
import { evaluateExpression } from '../expression/index.js';
import { lintDefinition } from '../linter.js';
import { ALL_VALUE_ITEM_TYPES, arbitraryForm, VALUE_ITEM_TYPES, type ValueItemType } from '../test/arbitrary-form.js';
import { exportExcel, importExcel } from './excel.js';
import { exportJson, formatImportIssue, importJson } from './import-result.js';
import { exportRedcapDictionary } from './redcap-export.js';
import { importRedcapDictionary, translateRedcapLogic, type RedcapFieldKind } from './redcap.js';
import { REDCAP_DICTIONARY as REDCAP_FIXTURE } from '../test/redcap-dictionary.js';

const walk = (nodes: readonly CrfNode[]): CrfNode[] => nodes.flatMap((n) => [n, ...walk(n.children)]);
const linted = (definition: CrfDefinition) => {
  const lint = lintDefinition(definition);
  expect([...lint.errors, ...lint.warnings].map((i) => i.message)).toEqual([]);
  return lint.definition!;
};

describe('JSON round trip (property)', () => {
  it('importJson(exportJson(forms)) gives back the forms exactly', () => {
    fc.assert(
      fc.property(fc.array(arbitraryForm({ types: ALL_VALUE_ITEM_TYPES }), { minLength: 1, maxLength: 3 }), (forms) => {
        const result = importJson(exportJson(forms));
        expect(result.issues).toEqual([]);
        expect(result.definitions).toEqual(forms.map(linted));
      }),
      { numRuns: 60 },
    );
  });
});

describe('Excel round trip (property)', () => {
  it('importExcel(exportExcel(forms)) gives back the forms exactly', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(arbitraryForm({ types: ALL_VALUE_ITEM_TYPES }), { minLength: 1, maxLength: 2 }),
        async (forms) => {
          // Two forms may draw the same id; ids are unique in a study.
          const defs = forms.map((f, i) => ({ ...f, id: `${String(f.id)}_${i}` }));
          const result = await importExcel(await exportExcel(defs));
          expect(result.issues.map(formatImportIssue)).toEqual([]);
          expect(result.definitions).toEqual(defs.map(linted));
        },
      ),
      { numRuns: 25 },
    );
  }, 60_000);
});

/**
 * The forms REDCap can express, written out as the restriction of the generic generator:
 *
 * - a form is one REDCap form: its title is its REDCap name read back (`visit_form` ↔ "visit form", the
 *   name kept as id), and its first field is REDCap's record ID, a text field without logic;
 * - sections only at the top, each named as the importer names them (`<form>_section_<n>`) and without
 *   logic of its own (REDCap's section headers have none); no list groups (REDCap's repeating forms are
 *   set up outside the dictionary), groups, cards or node ids; an item after a section belongs to it
 *   (a REDCap header runs to the next one);
 * - variable names are REDCap's (lowercase, digits, underscores) and unique in the project;
 * - no units (REDCap has none), no precision outside 1–4 (number_1dp … number_4dp), no hard bounds:
 *   REDCap's min/max are soft, which our importer writes as warning checks, so those are generated;
 * - showIf and calc are REDCap logic as the importer translates it, over fields of the same form
 *   (comparisons, and/or, datediff, sum, round, if, checkbox options); a calculated item is REDCap's
 *   calc field: a read-only real.
 */
const REDCAP_TYPES: readonly ValueItemType[] = [...VALUE_ITEM_TYPES, 'slider'];
const formNameArb = fc
  .tuple(fc.stringMatching(/^[a-z][a-z0-9]{0,7}$/), fc.array(fc.stringMatching(/^[a-z0-9]{1,5}$/), { maxLength: 2 }))
  .map(([head, rest]) => [head, ...rest].join('_'))
  .filter((name) => !name.startsWith('redcap') && !name.endsWith('_complete'));

interface Field {
  name: string;
  node: CrfNode;
}

/** REDCap's reading of a blank for each of our REDCap-expressible items (docs §9.3). */
function kindOf(node: CrfNode): RedcapFieldKind {
  if (node.option.calc || node.type === 'int' || node.type === 'real' || node.type === 'slider') return 'number';
  if (node.type === 'radio' || node.type === 'select') {
    return (node.option.optionsValue ?? '').split(',').every((c) => /^\d+$/.test(c)) ? 'number' : 'text';
  }
  return 'text';
}

/** A piece of REDCap branching logic about one earlier field. */
function conditionOn(field: Field, seed: number): string {
  const v = `[${field.name}]`;
  const codes = (field.node.option.optionsValue ?? '').split(',');
  const code = codes[seed % codes.length]!;
  const c = (seed % 40) - 5;
  // Only these types are generated (REDCAP_TYPES).
  switch (field.node.type as ValueItemType) {
    case 'int':
    case 'real':
    case 'slider':
      return [`${v} >= ${c}`, `${v} < ${c}`, `${v} <> ''`, `${v} = ${c}`, `(${v} <= ${c} or ${v} > 90)`][seed % 5]!;
    case 'radio':
    case 'select':
      return [`${v} = '${code}'`, `${v} <> '${code}'`, `${v} = ''`][seed % 3]!;
    case 'checkbox':
      return [`[${field.name}(${code})] = '1'`, `[${field.name}(${code})] = '0'`][seed % 2]!;
    case 'date':
    case 'datetime':
      return [
        `${v} < '2020-01-01'`,
        `${v} >= '2020-01-01'`,
        `${v} <> ''`,
        `datediff(${v}, 'today', 'd', 'ymd') > ${Math.abs(c)}`,
      ][seed % 4]!;
    case 'input':
    case 'textarea':
    case 'time':
      return [`${v} = ''`, `${v} <> 'x'`, `${v} > 'm'`][seed % 3]!;
    case 'number':
    case 'partialDate':
    case 'multiSelect':
      throw new Error(`REDCap has no ${field.node.type}: not generated`);
  }
}

/** A REDCap calculation over earlier number fields (a constant when there are none). */
function calculationOver(numbers: Field[], dates: Field[], seed: number): string {
  const c = (seed % 20) - 5;
  if (seed % 7 === 6 && dates.length >= 1) {
    const [a, b] = [dates[seed % dates.length]!, dates[(seed >> 2) % dates.length]!];
    return `datediff([${a.name}], [${b.name}], 'd', 'ymd'${seed % 2 === 0 ? ', true' : ''})`;
  }
  if (numbers.length === 0) return String(c);
  const a = `[${numbers[seed % numbers.length]!.name}]`;
  const b = `[${numbers[(seed >> 3) % numbers.length]!.name}]`;
  return [
    `${a} + ${c}`,
    `${a} * 2 - ${b}`,
    `round(${a} / 3, 1)`,
    `(${a} + ${b}) * ${Math.abs(c) + 1}`,
    `sum(${a}, ${b})`,
    `if(${a} > 5, 1, 0)`,
  ][seed % 6]!;
}

const redcapFormArb = (prefix: string) =>
  fc
    .record({
      form: formNameArb,
      shape: arbitraryForm({ types: REDCAP_TYPES, listGroups: false, expressions: false, ids: false }),
      logic: fc.array(fc.record({ show: fc.option(fc.nat(1000)), calc: fc.option(fc.nat(1000)) }), {
        minLength: 40,
        maxLength: 40,
      }),
    })
    .map(({ form, shape, logic }) => toRedcapShape(`${prefix}${form}`, shape, logic, prefix));

function toRedcapShape(
  form: string,
  shape: CrfDefinition,
  logic: Array<{ show: number | null; calc: number | null }>,
  prefix: string,
): CrfDefinition {
  const earlier: Field[] = [];
  let k = 0;
  const item = (node: CrfNode): CrfNode => {
    const name = `${prefix}${node.name}`;
    const option: ItemOption = {};
    const o = node.option;
    if (o.required) option.required = 1;
    if (o.optionsValue) Object.assign(option, { optionsValue: o.optionsValue, optionsText: o.optionsText });
    if ((node.type === 'input' || node.type === 'textarea') && o.validate?.max !== undefined) {
      option.validate = { max: o.validate.max };
    }
    // A REDCap slider has its range and no step.
    if (node.type === 'slider') Object.assign(option, { valueMin: o.valueMin, valueMax: o.valueMax });
    const precision = Number(o.validate?.precision ?? 0);
    if (node.type === 'real' && precision >= 1 && precision <= 4) option.validate = { precision };
    // Soft bounds, as the importer writes REDCap's min and max.
    const min = o.validate?.min;
    const max = o.validate?.max;
    if ((node.type === 'int' || node.type === 'real') && min !== undefined && max !== undefined) {
      option.checks = [
        { expression: `${name} >= ${Number(min)}`, message: CRF_MSG.belowMin(Number(min)), severity: 'warning' },
        { expression: `${name} <= ${Number(max)}`, message: CRF_MSG.aboveMax(Number(max)), severity: 'warning' },
      ];
    }
    const seed = logic[k++ % logic.length]!;
    const known = new Map(earlier.map((f) => [f.name, kindOf(f.node)]));
    const translate = (text: string) => {
      const translated = translateRedcapLogic(text, (v) => known.get(v));
      if (!translated.ok) throw new Error(`${text}: ${translated.reason}`);
      return translated.expression;
    };
    let type = node.type;
    if (seed.calc !== null && (node.type === 'int' || node.type === 'real')) {
      const numbers = earlier.filter(
        (f) => kindOf(f.node) === 'number' && f.node.type !== 'radio' && f.node.type !== 'select',
      );
      const dates = earlier.filter((f) => f.node.type === 'date');
      type = 'real';
      for (const key of Object.keys(option)) delete option[key];
      option.readOnly = 1;
      option.calc = translate(calculationOver(numbers, dates, seed.calc));
    }
    if (seed.show !== null && earlier.length > 0) {
      const a = earlier[seed.show % earlier.length]!;
      const b = earlier[(seed.show >> 4) % earlier.length]!;
      const text =
        seed.show % 3 === 0
          ? `${conditionOn(a, seed.show)} and ${conditionOn(b, seed.show >> 2)}`
          : seed.show % 3 === 1
            ? `${conditionOn(a, seed.show)} or ${conditionOn(b, seed.show >> 2)}`
            : conditionOn(a, seed.show);
      option.showIf = translate(text);
    }
    const out: CrfNode = { name, title: node.title, type, option, children: [] };
    earlier.push({ name, node: out });
    return out;
  };
  const children: CrfNode[] = [
    { name: `${prefix}record_id`, title: 'Record ID', type: 'input', option: {}, children: [] },
  ];
  earlier.push({ name: `${prefix}record_id`, node: children[0]! });
  let section: CrfNode | null = null;
  let sections = 0;
  for (const entry of shape.children) {
    if (entry.type === 'section') {
      sections += 1;
      section = { name: `${form}_section_${sections}`, title: entry.title, type: 'section', option: {}, children: [] };
      section.children = entry.children.map(item);
      children.push(section);
    } else if (section) section.children.push(item(entry));
    else children.push(item(entry));
  }
  return { id: form, title: form.replace(/_/g, ' '), option: {}, children };
}

describe('REDCap data dictionary round trip (property)', () => {
  it('importRedcapDictionary(exportRedcapDictionary(forms)).definitions equals the forms REDCap can express, without a finding', () => {
    fc.assert(
      fc.property(
        fc
          .array(fc.nat(), { minLength: 1, maxLength: 3 })
          .chain((forms) => fc.tuple(...forms.map((_, i) => redcapFormArb(forms.length > 1 ? `f${i}_` : '')))),
        (forms) => {
          const defs = forms.filter((f, i) => forms.findIndex((g) => g.id === f.id) === i).map(linted);
          const exported = exportRedcapDictionary(defs);
          expect(exported.issues.map(formatImportIssue)).toEqual([]);
          const result = importRedcapDictionary(exported.csv);
          expect(result.issues.map(formatImportIssue)).toEqual([]);
          expect(result.definitions).toEqual(defs);
        },
      ),
      { numRuns: 100 },
    );
  }, 60_000);

  it('a REDCap dictionary imported, exported and imported again gives identical definitions', () => {
    const first = importRedcapDictionary(REDCAP_FIXTURE);
    expect(first.ok).toBe(true);
    const exported = exportRedcapDictionary(first.definitions);
    const second = importRedcapDictionary(exported.csv);
    expect(second.issues.filter((i) => i.severity === 'error')).toEqual([]);
    expect(second.definitions).toEqual(first.definitions);
  });

  it('any condition: the exported branching logic holds exactly where our showIf is true, blanks included', () => {
    // One field of each kind REDCap reads differently (docs §9.3), and a random condition over them.
    const fields: Array<[string, CrfNode['type'], ItemOption]> = [
      ['a', 'int', {}],
      ['b', 'real', {}],
      ['t', 'input', {}],
      ['d', 'date', {}],
      ['r', 'radio', { optionsValue: '1,2,3', optionsText: '一,二,三' }],
      ['s', 'select', { optionsValue: 'x,y', optionsText: '甲,乙' }],
      ['c', 'checkbox', { optionsValue: '1,2', optionsText: '一,二' }],
    ];
    const literal = fc.constantFrom('0', '1', '5', '-2', '""', '"1"', '"2024-01-01"', '"x"', '"y"');
    const operand = fc.oneof(fc.constantFrom('a', 'b', 't', 'd', 'r', 's'), literal);
    const op = fc.constantFrom('==', '!=', '<', '<=', '>', '>=');
    const leaf = fc.oneof(
      fc.tuple(fc.constantFrom('a', 'b', 't', 'd', 'r', 's'), op, operand).map(([l, o, r]) => `${l} ${o} ${r}`),
      fc.tuple(literal, op, fc.constantFrom('a', 'd', 's')).map(([l, o, r]) => `${l} ${o} ${r}`),
      fc.constantFrom('checked(c, "1") == 1', 'c == "2"', 'c != "1"', 'isblank(t)', 'not isblank(a)', 'isblank(c)'),
      // What the importer writes for REDCap's own comparisons, negated below as users may.
      fc
        .tuple(
          fc.constantFrom('a', 'b', 't', 'd', 'r', 's'),
          fc.constantFrom('=', '<>', '<', '<=', '>', '>='),
          fc.constantFrom("''", "'1'", '5', "'2024-01-01'", "'x'", '[a]', '[d]'),
        )
        .map(([field, op, right]) => {
          const kinds: Record<string, RedcapFieldKind> = { a: 'number', b: 'number', r: 'number' };
          const translated = translateRedcapLogic(`[${field}] ${op} ${right}`, (v) => kinds[v] ?? 'text');
          return translated.ok ? translated.expression : 'true';
        }),
    );
    const { condition } = fc.letrec<{ condition: string }>((tie) => ({
      condition: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        leaf,
        fc
          .tuple(tie('condition'), fc.constantFrom('and', 'or'), tie('condition'))
          .map(([l, o, r]) => `(${l}) ${o} (${r})`),
        tie('condition').map((c) => `not (${c})`),
      ),
    }));
    // Values each field can hold (a number field holds numbers, a date dates).
    const number = fc.constantFrom('', '0', '1', '2', '5', '-2');
    const values = fc.record({
      a: number,
      b: number,
      t: fc.constantFrom('', '0', '1', '5', '2024-01-01', 'x', 'y'),
      d: fc.constantFrom('', '2023-12-31', '2024-01-01', '2024-06-15'),
      r: fc.constantFrom('', '1', '2', '3'),
      s: fc.constantFrom('', 'x', 'y'),
      c: fc.constantFrom([], ['1'], ['2'], ['1', '2']),
    });
    const clock = { today: '2024-06-15', now: '2024-06-15 10:00:00' };
    fc.assert(
      fc.property(condition, fc.array(values, { minLength: 8, maxLength: 8 }), (showIf, samples) => {
        const form: CrfDefinition = {
          id: 'logic',
          title: 'logic',
          option: {},
          children: [
            { name: 'record_id', title: 'Record ID', type: 'input', option: {}, children: [] },
            ...fields.map(([name, type, option]) => ({ name, title: name, type, option, children: [] })),
            { name: 'z', title: 'z', type: 'input', option: { showIf }, children: [] },
          ],
        };
        const exported = exportRedcapDictionary([form]);
        const back = importRedcapDictionary(exported.csv);
        expect(back.issues.map(formatImportIssue)).toEqual([]);
        // No branching logic: always shown.
        const theirs = back.definitions[0]!.children.find((n) => n.name === 'z')!.option.showIf ?? 'true';
        for (const sample of samples) {
          const ours = evaluateExpression(showIf, sample, clock) === true;
          const shown = evaluateExpression(theirs, sample, clock) === true;
          expect(shown, `${showIf} → ${theirs} with ${JSON.stringify(sample)}`).toBe(ours);
        }
      }),
      { numRuns: 300 },
    );
  }, 60_000);

  it('any form: the exported logic shows an item exactly where ours does, blanks included', () => {
    const values = fc.dictionary(
      fc.constantFrom(...Array.from({ length: 24 }, (_, k) => `q${(k % 6) + 1}_${Math.floor(k / 6) + 1}`)),
      fc.oneof(fc.constant(''), fc.constantFrom('0', '1', '2', '3', '45', '2019-06-01', '2021-01-01', 'x', 'c1')),
    );
    fc.assert(
      fc.property(arbitraryForm({ listGroups: false, types: REDCAP_TYPES }), values, (form, sample) => {
        const exported = exportRedcapDictionary([form]);
        const result = importRedcapDictionary(exported.csv);
        expect(result.issues.filter((i) => i.severity === 'error').map(formatImportIssue)).toEqual([]);
        const back = new Map(walk(result.definitions[0]!.children).map((n) => [n.name, n]));
        const clock = { today: '2024-06-15', now: '2024-06-15 10:00:00' };
        for (const node of walk(form.children)) {
          if (!node.option.showIf || node.type === 'section') continue;
          const ours = evaluateExpression(node.option.showIf, sample, clock) === true;
          const theirs = back.get(node.name)?.option.showIf;
          expect(theirs, node.option.showIf).toBeDefined();
          const inherited = evaluateExpression(theirs!, sample, clock) === true;
          // The exported logic also carries the section's condition.
          const section = form.children.find((s) => s.children.includes(node));
          const sectionShows =
            !section?.option.showIf || evaluateExpression(section.option.showIf, sample, clock) === true;
          expect(inherited, `${node.option.showIf} → ${theirs}`).toBe(ours && sectionShows);
        }
      }),
      { numRuns: 200 },
    );
  }, 60_000);
});
