import fc from 'fast-check';
import type { CrfDefinition, CrfNode, ItemOption, ItemType } from '../crf-definition.schema.js';

/**
 * Random valid CRF definitions for round-trip property tests of the importers and exporters. Every
 * generated form passes `lintDefinition`; formats that cannot carry some feature switch it off with the
 * options (REDCap has no list groups, Excel keeps no ids, ...).
 */
export interface ArbitraryFormOptions {
  /** Item types to draw from (defaults to every value type below). */
  types?: readonly ValueItemType[];
  /** Top-level sections holding items (default true). */
  sections?: boolean;
  /** List groups with columns (default true). */
  listGroups?: boolean;
  /** showIf and calc expressions over earlier items (default true). */
  expressions?: boolean;
  /** Node and form ids (default true). */
  ids?: boolean;
  /** Title characters: 'any' mixes Chinese, ASCII and XML-special characters; 'plain' is letters and digits. */
  titles?: 'any' | 'plain';
  /** Most top-level entries (default 6). */
  maxEntries?: number;
  /** Some items get an English alternate title, option.titleEn (default false: few formats carry it). */
  alternateTitles?: boolean;
}

/** The types drawn by default: what every format we exchange can carry. */
export const VALUE_ITEM_TYPES = [
  'input',
  'textarea',
  'int',
  'real',
  'date',
  'datetime',
  'time',
  'radio',
  'select',
  'checkbox',
] as const satisfies readonly ItemType[];
/** Every value type the generator knows; pass it as `types` where the format carries them all. */
export const ALL_VALUE_ITEM_TYPES = [
  ...VALUE_ITEM_TYPES,
  'number',
  'partialDate',
  'multiSelect',
  'slider',
] as const satisfies readonly ItemType[];
export type ValueItemType = (typeof ALL_VALUE_ITEM_TYPES)[number];

const TITLE_CHARS = [...'基线访视血压体重日期是否其他说明abcXYZ019 &<>"\'（）：，'];
const PLAIN_CHARS = [...'abcdefghXYZ0123456789'];

const titleArb = (mode: 'any' | 'plain') =>
  fc
    .array(fc.constantFrom(...(mode === 'any' ? TITLE_CHARS : PLAIN_CHARS)), { minLength: 1, maxLength: 12 })
    .map((chars) => chars.join('').trim())
    .filter((s) => s.length > 0);

const choiceTextArb = fc
  .array(fc.constantFrom(...'男女是否轻中重度abcXY12 <>&'), { minLength: 1, maxLength: 6 })
  .map((chars) => chars.join('').trim())
  .filter((s) => s.length > 0);

/** Choices: distinct codes (numeric or text) and non-empty labels without ASCII commas. */
const choicesArb = fc
  .tuple(
    fc.boolean(),
    fc.uniqueArray(fc.integer({ min: 0, max: 99 }), { minLength: 1, maxLength: 5 }),
    fc.array(choiceTextArb, { minLength: 5, maxLength: 5 }),
  )
  .map(([numeric, codes, texts]) => ({
    optionsValue: codes.map((c) => (numeric ? String(c) : `c${c}`)).join(','),
    optionsText: codes.map((_, i) => texts[i]!).join(','),
  }));

/** An item's own options; bounds are ordered and precision is a small integer. */
function optionArb(type: ValueItemType): fc.Arbitrary<ItemOption> {
  const flag = fc.option(fc.constant(1 as const), { nil: undefined });
  const base = fc.record({ required: flag }).map(({ required }) => (required ? { required } : {}));
  switch (type) {
    case 'int':
      return fc
        .tuple(base, fc.option(fc.tuple(fc.integer({ min: -50, max: 50 }), fc.integer({ min: 0, max: 500 }))))
        .map(([o, bounds]) => (bounds ? { ...o, validate: { min: bounds[0], max: bounds[0] + bounds[1] } } : o));
    case 'real':
      return fc
        .tuple(
          base,
          fc.option(fc.tuple(fc.integer({ min: -100, max: 100 }), fc.integer({ min: 1, max: 1000 }))),
          fc.option(fc.integer({ min: 0, max: 3 })),
          fc.option(fc.constantFrom('kg', 'cm', 'mmHg')),
        )
        .map(([o, bounds, precision, units]) => {
          const out: ItemOption = { ...o };
          if (bounds) out.validate = { min: bounds[0] / 10, max: (bounds[0] + bounds[1]) / 10 };
          if (precision !== null) out.validate = { ...out.validate, precision };
          if (units !== null) out.units = units;
          return out;
        });
    case 'radio':
    case 'select':
    case 'checkbox':
    case 'multiSelect':
      return fc.tuple(base, choicesArb).map(([o, choices]) => ({ ...o, ...choices }));
    case 'number':
      return fc
        .tuple(base, fc.option(fc.tuple(fc.integer({ min: -50, max: 50 }), fc.integer({ min: 0, max: 500 }))))
        .map(([o, bounds]) => (bounds ? { ...o, validate: { min: bounds[0], max: bounds[0] + bounds[1] } } : o));
    case 'slider':
      return fc
        .tuple(
          base,
          fc.integer({ min: -10, max: 10 }),
          fc.integer({ min: 1, max: 100 }),
          fc.integer({ min: 1, max: 5 }),
        )
        .map(([o, min, span, step]) => ({ ...o, valueMin: min, valueMax: min + span, valueStep: step }));
    case 'input':
    case 'textarea':
      return fc
        .tuple(base, fc.option(fc.integer({ min: 1, max: 500 })))
        .map(([o, max]) => (max === null ? o : { ...o, validate: { max } }));
    case 'date':
    case 'datetime':
    case 'partialDate':
    case 'time':
      return base;
  }
}

interface Draft {
  type: ValueItemType;
  title: string;
  option: ItemOption;
  /** Picks a logic seed: which earlier item an expression reads and how. */
  logic: { showIf: number | null; calc: number | null; constant: number };
  titleEn: string | null;
}

const logicArb = fc.record({
  showIf: fc.option(fc.nat(1000)),
  calc: fc.option(fc.nat(1000)),
  constant: fc.integer({ min: -5, max: 50 }),
});

const draftArb = (types: readonly ValueItemType[], titles: 'any' | 'plain', alternateTitles: boolean) =>
  fc.constantFrom(...types).chain((type) =>
    fc.record({
      type: fc.constant(type),
      title: titleArb(titles),
      option: optionArb(type),
      logic: logicArb,
      titleEn: alternateTitles ? fc.option(titleArb('plain')) : fc.constant(null),
    }),
  );

interface Scope {
  name: string;
  type: ValueItemType;
  option: ItemOption;
}

/** A condition on an earlier item that the linter accepts and that reads naturally. */
function conditionOn(item: Scope, constant: number): string {
  const first = (item.option.optionsValue ?? '').split(',')[0] ?? '';
  switch (item.type) {
    case 'int':
    case 'real':
    case 'number':
    case 'slider':
      return constant % 2 === 0 ? `${item.name} >= ${constant}` : `${item.name} < ${constant} or ${item.name} > 90`;
    case 'radio':
    case 'select':
      return constant % 2 === 0 ? `${item.name} == "${first}"` : `not (${item.name} == "${first}")`;
    case 'checkbox':
      return `checked(${item.name}, "${first}") == 1`;
    case 'date':
    case 'datetime':
      return `${item.name} >= "2020-01-01"`;
    case 'time':
    case 'input':
    case 'textarea':
    case 'partialDate':
    case 'multiSelect':
      return constant % 2 === 0 ? `not isblank(${item.name})` : `${item.name} != "x"`;
  }
}

/** A numeric formula over earlier numeric items (or a constant when there are none). */
function formulaOver(numbers: Scope[], seed: number, constant: number): string {
  if (numbers.length === 0) return String(constant);
  const a = numbers[seed % numbers.length]!.name;
  const b = numbers[(seed >> 3) % numbers.length]!.name;
  switch (seed % 4) {
    case 0:
      return `${a} + ${constant}`;
    case 1:
      return `${a} * 2 - ${b}`;
    case 2:
      return `round(${a} / 3, 1)`;
    default:
      return `(${a} + ${b}) * ${Math.abs(constant) + 1}`;
  }
}

const isNumber = (type: ValueItemType) => type === 'int' || type === 'real' || type === 'number' || type === 'slider';

function build(drafts: Draft[], prefix: string, scope: Scope[], withLogic: boolean, ids: boolean): CrfNode[] {
  return drafts.map((draft, i) => {
    const name = `${prefix}${i + 1}`;
    const option: ItemOption = { ...draft.option };
    if (draft.titleEn !== null) option.titleEn = draft.titleEn;
    const earlier = scope.filter((s) => s.name !== name);
    if (withLogic && draft.logic.showIf !== null && earlier.length > 0) {
      option.showIf = conditionOn(earlier[draft.logic.showIf % earlier.length]!, draft.logic.constant);
    }
    if (withLogic && draft.logic.calc !== null && isNumber(draft.type) && draft.type !== 'slider') {
      const numbers = earlier.filter((s) => isNumber(s.type));
      option.calc = formulaOver(numbers, draft.logic.calc, draft.logic.constant);
      // A calculated item's bounds and required flag would make random data fail; keep it plain.
      delete option.validate;
      delete option.required;
    }
    scope.push({ name, type: draft.type, option });
    const node: CrfNode = { name, title: draft.title, type: draft.type, option, children: [] };
    if (ids) node.id = `${prefix}-${i + 1}`;
    return node;
  });
}

/** A random valid form; see ArbitraryFormOptions for what each format may switch off. */
export function arbitraryForm(options: ArbitraryFormOptions = {}): fc.Arbitrary<CrfDefinition> {
  const types = options.types ?? VALUE_ITEM_TYPES;
  const titles = options.titles ?? 'any';
  const withLogic = options.expressions ?? true;
  const ids = options.ids ?? true;
  const items = (max: number) =>
    fc.array(draftArb(types, titles, options.alternateTitles ?? false), { minLength: 1, maxLength: max });
  const kinds: Array<'item' | 'section' | 'listGroup'> = ['item'];
  if (options.sections ?? true) kinds.push('section');
  if (options.listGroups ?? true) kinds.push('listGroup');
  const entry = fc.record({
    kind: fc.constantFrom(...kinds),
    title: titleArb(titles),
    items: items(4),
    groupShowIf: fc.option(fc.nat(1000)),
  });
  return fc
    .record({
      title: titleArb(titles),
      id: fc.stringMatching(/^[a-z][a-z0-9_]{0,8}$/),
      entries: fc.array(entry, { minLength: 1, maxLength: options.maxEntries ?? 6 }),
    })
    .map(({ title, id, entries }) => {
      const scope: Scope[] = [];
      const children: CrfNode[] = [];
      entries.forEach((e, k) => {
        if (e.kind === 'item') {
          children.push(...build([e.items[0]!], `q${k + 1}_`, scope, withLogic, ids));
          return;
        }
        const container: CrfNode = {
          name: `${e.kind === 'section' ? 's' : 'lg'}${k + 1}`,
          title: e.title,
          type: e.kind,
          option: {},
          children: [],
        };
        if (withLogic && e.groupShowIf !== null && scope.length > 0) {
          container.option.showIf = conditionOn(scope[e.groupShowIf % scope.length]!, e.groupShowIf);
        }
        if (ids) container.id = container.name;
        if (e.kind === 'section') {
          container.children = build(e.items, `q${k + 1}_`, scope, withLogic, ids);
        } else {
          // Columns read earlier columns of their row and items outside; nothing outside reads them.
          const rowScope = [...scope];
          container.children = build(e.items, `c${k + 1}_`, rowScope, withLogic, ids);
        }
        children.push(container);
      });
      const definition: CrfDefinition = { title, option: {}, children };
      if (ids) definition.id = id;
      return definition;
    });
}
