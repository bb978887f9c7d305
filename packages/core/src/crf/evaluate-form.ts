import { hasAnyPermission } from '../access.js';
import { compileForm, CrfDefinitionError, type CompiledForm, type NodeInfo, type Unit } from './compile-form.js';
import { isChoiceType, isRowType, isValueType, type CrfDefinition, type CrfNode } from './crf-definition.schema.js';
import { CRF_MSG } from './crf-messages.js';
import { DEFAULT_TIME_ZONE, nowString, todayString } from './date-time.js';
import { toValue, truthy, type ExpressionEnv, type FormReference, type Value } from './expression/index.js';
import { isEmptyValue, validateField } from './field-rules.js';
import { isIdentifierMask } from './identifier-mask.js';
import { itemTypeOf } from './item-types/registry.js';
import { indexList, isOn } from './options.js';
import { judgedIndicator, type RangeOverride } from './lab-ranges.js';
import { hasReferenceRange, type Gender } from './reference-range.js';
import { selectedUnit } from './units.js';
import { convertValue, formatCalculated, parseConverterRule } from './value-converter.js';
import { normalizeValue, readRows, type RowValues } from './value-shapes.js';
import { chosenIndexes, isShownBySpecRules, type TriggerLookup } from './visibility.js';
import type { SpineBandSet } from '../spine/diagnosis.js';

export interface EvaluationContext {
  /** The instant "now" and today() mean; the server passes its clock, tests a fixed one. */
  now: Date;
  /** The study's zone for today/now; China Standard Time by default. */
  timeZone?: string;
  /** The subject's gender for reference ranges (see reference-range.ts for the encodings). */
  gender?: Gender | null;
  /** False when the user lacks business.crf.save and business.crf.submit (forms §4). */
  editable?: boolean;
  /** Study operate mode (typeOperate) disables every widget (forms §4). */
  operate?: boolean;
  /**
   * The values of the patient's other forms that form("标题", "item") reads, by form title: the newest
   * live record of each (formReferencesOf says which forms and items). A form absent here reads blank.
   */
  forms?: Readonly<Record<string, Readonly<Record<string, unknown>> | undefined>>;
  /** The study's 脊柱诊断分级标准: the bands a spine measurement widget diagnoses by (the spec's when absent). */
  spineBandSet?: SpineBandSet;
  /**
   * 缺失原因 (issue 37): items marked with one of the study's missing-data codes instead of a value, by item name
   * (crf_data_records.missing). Only the form's top-level items are marked; see markedCode for the rule.
   */
  missing?: Readonly<Record<string, string>>;
  /**
   * 参考范围 (issue 37): the patient's site's ranges that replace an item's own for ↑/↓, by top-level item name
   * (lab-ranges.ts rangesForForm; a stored record's via overridesFromUsed).
   */
  referenceRanges?: Readonly<Record<string, RangeOverride>>;
}

export interface ItemState {
  key: string;
  visible: boolean;
  required: boolean;
  readOnly: boolean;
  /** The value after the rules: cleared when hidden, calculated when the item has calc. */
  value: unknown;
  calculated: boolean;
  errors: string[];
  warnings: string[];
  range: 'low' | 'high' | null;
  /** Whether the addition input of a choice item shows (the chosen option is in additionIndex). */
  additionVisible: boolean;
  /** For list groups and tables: the state of each child in each row. */
  rows?: Array<Record<string, ItemState>>;
  /** The missing-data code the item is marked with (缺失原因): it then holds no value and raises nothing. */
  missing?: string;
}

export interface FormIssue {
  /** The item's name (for a row child, the child's name). */
  item: string;
  /** For a row child: the list group or table and the row index. */
  container?: string;
  row?: number;
  message: string;
  severity: 'error' | 'warning';
}

export interface FormState {
  items: Readonly<Record<string, ItemState>>;
  /** Values to store: hidden items cleared, calculations applied, shapes canonical. */
  values: Readonly<Record<string, unknown>>;
  /** Missing-data marks to store: those of shown items (a hidden item's mark is cleared as its value is). */
  missing: Readonly<Record<string, string>>;
  /** Errors block submit; the server's verdict on these is authoritative. */
  errors: FormIssue[];
  /** Warnings never block; the server raises them as system queries. */
  warnings: FormIssue[];
  valid: boolean;
}

export interface EvaluateOptions {
  /** The state returned for the same definition before the change. */
  previous?: FormState;
  /** Top-level value keys that changed since `previous`; only what depends on them re-evaluates. */
  changed?: readonly string[];
}

export const CRF_EDIT_PERMISSIONS = ['business.crf.save', 'business.crf.submit'] as const;

/** forms §4: the form is editable with business.crf.save or business.crf.submit. */
export function isFormEditable(permissions: readonly string[]): boolean {
  return hasAnyPermission(permissions, CRF_EDIT_PERMISSIONS);
}

/** The key under which a choice item's addition text is stored. */
export const additionKey = (name: string) => `${name}_addition`;

/**
 * Whether a choice item has an addition text box (其他（请注明）): one of its options shows it, as the engine
 * decides (additionVisible). Its text is a value of its own in every export.
 */
export const hasAddition = (node: Pick<CrfNode, 'name' | 'type' | 'option'>) =>
  node.name !== '' && isChoiceType(node.type) && indexList(node.option.additionIndex).length > 0;

/** The key under which the unit chosen in a unit selector is stored (items with several units). */
export const unitKey = (name: string) => `${name}_unit`;

/** The unit chosen in an item's unit selector, when it may stand (units.ts, selectedUnit). */
function chosenUnit(info: NodeInfo, input: Readonly<Record<string, unknown>>): string | undefined {
  const name = info.node.name;
  return name ? selectedUnit(info.node.option ?? {}, input[unitKey(name)]) : undefined;
}

const compiledCache = new WeakMap<CrfDefinition, CompiledForm>();

/** The compiled form of a linted definition (cached per definition object). Throws CrfDefinitionError on a broken one. */
export function getCompiledForm(definition: CrfDefinition): CompiledForm {
  let compiled = compiledCache.get(definition);
  if (!compiled) {
    compiled = compileForm(definition);
    compiledCache.set(definition, compiled);
  }
  const errors = compiled.issues.filter((i) => i.severity === 'error');
  if (errors.length > 0) throw new CrfDefinitionError(errors);
  return compiled;
}

interface Run {
  compiled: CompiledForm;
  context: EvaluationContext;
  input: Readonly<Record<string, unknown>>;
  effective: Record<string, unknown>;
  items: Record<string, ItemState>;
  clock: { today: string; now: string };
  env: ExpressionEnv;
  lookup: TriggerLookup;
  /** Cross-field checks, run once every value is final: a check may read items evaluated after its own. */
  deferredChecks: Array<() => void>;
}

/** The compiled form and the marks a state was evaluated with: a later run reuses it only for the same form. */
const previousRuns = new WeakMap<FormState, { compiled: CompiledForm; missing: Readonly<Record<string, string>> }>();

const NO_MARKS: Readonly<Record<string, string>> = Object.freeze({});

/** The names whose missing-data mark differs between two mark maps. */
function changedMarks(a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): string[] {
  return [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((name) => a[name] !== b[name]);
}

/**
 * The single entry point of the rules (forms §4, §5): visibility, calculations, required flags,
 * validation, cross-field checks and reference-range indicators for every item. Pure: it never
 * mutates the definition, the values or a previous state, and returns a new state. With
 * `previous` and `changed` it re-evaluates only the items downstream of the change.
 */
export function evaluateForm(
  definition: CrfDefinition,
  values: Readonly<Record<string, unknown>>,
  context: EvaluationContext,
  options: EvaluateOptions = {},
): FormState {
  const compiled = getCompiledForm(definition);
  const timeZone = context.timeZone ?? DEFAULT_TIME_ZONE;
  const clock = { today: todayString(context.now, timeZone), now: nowString(context.now, timeZone) };
  const run: Run = {
    compiled,
    context,
    input: values,
    effective: {},
    items: {},
    clock,
    env: null as unknown as ExpressionEnv,
    lookup: null as unknown as TriggerLookup,
    deferredChecks: [],
  };
  run.env = globalEnv(run);
  run.lookup = (name) => {
    const info = compiled.byName.get(name);
    return info && !info.rowOwner ? { node: info.node, value: run.effective[name] } : null;
  };

  const previous = options.previous;
  const missing = context.missing ?? NO_MARKS;
  const previousRun = previous ? previousRuns.get(previous) : undefined;
  let units: Iterable<Unit> = compiled.order;
  if (previous && options.changed && previousRun?.compiled === compiled) {
    Object.assign(run.effective, previous.values);
    Object.assign(run.items, previous.items);
    // An item marked or unmarked since is a change of its own, whether or not its value changed.
    const affected = affectedUnits(compiled, [...options.changed, ...changedMarks(previousRun.missing, missing)]);
    units = compiled.order.filter((u) => affected.has(u));
    for (const unit of units) clearUnit(run, unit);
  }
  for (const unit of units) evaluateUnit(run, unit);
  for (const check of run.deferredChecks) check();

  const errors: FormIssue[] = [];
  const warnings: FormIssue[] = [];
  for (const info of compiled.nodes) {
    if (info.rowOwner) continue;
    const state = run.items[info.key];
    if (!state) continue;
    collect(info.node.name || info.key, state, undefined, undefined, errors, warnings);
    state.rows?.forEach((row, i) => {
      for (const [childKey, childState] of Object.entries(row)) {
        collect(childKey, childState, info.node.name, i, errors, warnings);
      }
    });
  }
  const marks: Record<string, string> = {};
  for (const info of compiled.nodes) {
    const code = run.items[info.key]?.missing;
    if (code !== undefined && !info.rowOwner) marks[info.node.name] = code;
  }
  const state: FormState = {
    items: run.items,
    values: run.effective,
    missing: marks,
    errors,
    warnings,
    valid: errors.length === 0,
  };
  previousRuns.set(state, { compiled, missing });
  return state;
}

function collect(
  item: string,
  state: ItemState,
  container: string | undefined,
  row: number | undefined,
  errors: FormIssue[],
  warnings: FormIssue[],
) {
  const where = container === undefined ? { item } : { item, container, row };
  for (const message of state.errors) errors.push({ ...where, message, severity: 'error' });
  for (const message of state.warnings) warnings.push({ ...where, message, severity: 'warning' });
}

function affectedUnits(compiled: CompiledForm, changed: readonly string[]): Set<Unit> {
  const affected = new Set<Unit>();
  const queue: Unit[] = [];
  for (const name of changed) {
    // A changed addition text or unit choice is its item's change: the item keeps it and is judged with it again.
    const unit = compiled.unitOfName.get(name) ?? compiled.unitOfName.get(name.replace(/_(addition|unit)$/, ''));
    if (unit && !affected.has(unit)) {
      affected.add(unit);
      queue.push(unit);
    }
  }
  while (queue.length > 0) {
    const unit = queue.pop()!;
    for (const next of unit.successors) {
      if (!affected.has(next)) {
        affected.add(next);
        queue.push(next);
      }
    }
  }
  for (const unit of [...affected]) for (const reader of unit.checkReaders) affected.add(reader);
  return affected;
}

function clearUnit(run: Run, unit: Unit) {
  const name = unit.root.node.name;
  if (name) {
    delete run.effective[name];
    delete run.effective[additionKey(name)];
    delete run.effective[unitKey(name)];
  }
}

function globalEnv(run: Run): ExpressionEnv {
  return {
    get(name) {
      const info = run.compiled.byName.get(name);
      if (!info) return null;
      if (info.rowOwner) {
        // Outside its rows a list-group column reads as the list of its values, for sum(), count() and the like.
        const rows = run.effective[info.rowOwner.node.name];
        return Array.isArray(rows) ? rows.map((row: RowValues) => toValue(row[name])) : null;
      }
      return Object.hasOwn(run.effective, name) ? toValue(run.effective[name]) : null;
    },
    today: () => run.clock.today,
    now: () => run.clock.now,
    form: (title, item) => otherFormValue(run.context.forms, title, item),
  };
}

/** An item of another form: blank when the form or the item is missing; list-group rows read blank too. */
function otherFormValue(forms: EvaluationContext['forms'], title: string, item: string): Value {
  const values = forms && Object.hasOwn(forms, title) ? forms[title] : undefined;
  if (!values || !Object.hasOwn(values, item)) return null;
  const raw = values[item];
  if (Array.isArray(raw) && raw.some((v) => typeof v === 'object' && v !== null)) return null;
  return toValue(raw);
}

/** The other forms' items a definition's expressions read (form() references), each once. */
export function formReferencesOf(definition: CrfDefinition): readonly FormReference[] {
  return getCompiledForm(definition).formReferences;
}

function evaluateUnit(run: Run, unit: Unit) {
  const info = unit.root;
  const parentVisible = info.parent ? run.items[info.parent.key]?.visible === true : true;
  const visible = parentVisible && isVisible(info, run.env, run.lookup);
  const name = info.node.name;
  if (!isRowType(info.node.type)) {
    const state = evaluateItem(run, info, visible, run.input, run.env);
    run.items[info.key] = state;
    if (name && state.value !== undefined) run.effective[name] = state.value;
    if (name && state.additionVisible && Object.hasOwn(run.input, additionKey(name))) {
      run.effective[additionKey(name)] = run.input[additionKey(name)];
    }
    const unit = visible && state.missing === undefined ? chosenUnit(info, run.input) : undefined;
    if (name && unit) run.effective[unitKey(name)] = unit;
    return;
  }
  const state = baseState(run, info, visible);
  const code = markedCode(run, info, visible);
  if (code !== undefined) {
    run.items[info.key] = { ...state, missing: code, rows: [] };
    return;
  }
  const rowsIn = visible ? readRows(name ? run.input[name] : undefined) : [];
  const rowsOut: RowValues[] = [];
  state.rows = rowsIn.map((rowIn) => {
    // A row holding an identifier its reader may not see is kept as it is: the save knows it by how it was shown.
    const masked = Object.values(rowIn).some(isIdentifierMask);
    const rowOut: RowValues = {};
    const rowStates: Record<string, ItemState> = {};
    const rowEnv: ExpressionEnv = {
      get: (dep) => {
        const member = run.compiled.byName.get(dep);
        if (member && member.rowOwner === info) return Object.hasOwn(rowOut, dep) ? toValue(rowOut[dep]) : null;
        return run.env.get(dep);
      },
      today: run.env.today,
      now: run.env.now,
      form: run.env.form,
    };
    const rowLookup: TriggerLookup = (dep) => {
      const member = run.compiled.byName.get(dep);
      if (member && member.rowOwner === info) return { node: member.node, value: rowOut[dep] };
      return run.lookup(dep);
    };
    for (const member of unit.rowMembers) {
      const parentShown = member.parent === info ? true : rowStates[member.parent!.key]?.visible === true;
      const memberVisible = parentShown && isVisible(member, rowEnv, rowLookup);
      const childName = member.node.name;
      const memberState = evaluateItem(run, member, memberVisible, rowIn, rowEnv);
      if (masked) memberState.readOnly = true;
      rowStates[member.key] = memberState;
      if (childName && memberState.value !== undefined) rowOut[childName] = memberState.value;
      if (childName && memberState.additionVisible && Object.hasOwn(rowIn, additionKey(childName))) {
        rowOut[additionKey(childName)] = rowIn[additionKey(childName)];
      }
      const rowUnit = memberVisible ? chosenUnit(member, rowIn) : undefined;
      if (childName && rowUnit) rowOut[unitKey(childName)] = rowUnit;
    }
    rowsOut.push(rowOut);
    return rowStates;
  });
  if (visible) {
    state.value = rowsOut;
    if (state.required && rowsOut.length === 0) state.errors.push(info.rule.errorMsg || CRF_MSG.requiredInput);
    if (name) run.effective[name] = rowsOut;
  }
  run.items[info.key] = state;
}

/**
 * 缺失原因 (issue 37), the one rule: a shown top-level value item marked with a code holds no value (what was typed is
 * cleared), and nothing is judged on it: a required one is complete, no type, range, reference-range or cross-field
 * check fires, and a check of another item that reads it reads blank (undecidable, so silent). A hidden item's mark
 * goes with its value. Row cells are not marked one by one: a list group or table is marked whole. Whether the code
 * is one of the study's is the save's to judge (missingMarkIssues), the engine takes the marks as given.
 */
function markedCode(run: Run, info: NodeInfo, visible: boolean): string | undefined {
  const name = info.node.name;
  if (!visible || !name || info.rowOwner || !isValueType(info.node.type)) return undefined;
  const marks = run.context.missing;
  return marks && Object.hasOwn(marks, name) ? marks[name] : undefined;
}

/** Whether an expression reads an identifier its reader may not see: it cannot be decided in the browser. */
const readsMask = (names: readonly string[], env: ExpressionEnv) =>
  names.some((name) => isIdentifierMask(env.get(name)));

function isVisible(info: NodeInfo, env: ExpressionEnv, lookup: TriggerLookup): boolean {
  // A condition on a masked identifier shows its item rather than hiding and clearing it; the server, which reads
  // the stored value, decides when the form is saved.
  const { trig, trigex } = info.triggers;
  const triggers = [...(trig ? [trig.name] : []), ...trigex.map((t) => t.name)];
  if (readsMask(triggers, env) || (info.showIf !== null && readsMask(info.showIf.dependencies, env))) return true;
  if (!isShownBySpecRules(info.node.option, lookup)) return false;
  // A showIf that cannot be decided yet (blank inputs) hides, as REDCap branching logic does.
  return info.showIf ? truthy(info.showIf.evaluate(env)) : true;
}

function baseState(run: Run, info: NodeInfo, visible: boolean): ItemState {
  const option = info.node.option;
  return {
    key: info.key,
    visible,
    required: visible && info.rule.required === true && isValueType(info.node.type),
    readOnly:
      run.context.editable === false || run.context.operate === true || isOn(option.readOnly) || info.calc !== null,
    value: undefined,
    calculated: false,
    errors: [],
    warnings: [],
    range: null,
    additionVisible: false,
  };
}

function calculatedValue(info: NodeInfo, result: Value): unknown {
  if (result === null) return undefined;
  if (typeof result === 'number') {
    const format = info.node.option.format;
    if (format && (info.node.type === 'int' || info.node.type === 'real' || info.node.type === 'number')) {
      try {
        return convertValue(result, parseConverterRule(format));
      } catch {
        return formatCalculated(result);
      }
    }
    return info.node.type === 'slider' ? result : formatCalculated(result);
  }
  if (typeof result === 'boolean') return result ? '1' : '0';
  if (Array.isArray(result)) return result.map((v) => (v === null ? '' : String(v)));
  return result;
}

/** `source` is the record the item's value, unit and addition are read from: the form's values or a row. */
function evaluateItem(
  run: Run,
  info: NodeInfo,
  visible: boolean,
  source: Readonly<Record<string, unknown>>,
  env: ExpressionEnv,
): ItemState {
  const state = baseState(run, info, visible);
  const node = info.node;
  if (!visible || !isValueType(node.type)) return state;
  const code = markedCode(run, info, visible);
  if (code !== undefined) return { ...state, missing: code };
  const raw = node.name ? source[node.name] : undefined;
  // An identifier its reader may not see (identifier-items.ts): kept as its mask, unchecked and read-only. The
  // save puts the stored value back in its place; the mask itself is never stored.
  if (isIdentifierMask(raw)) return { ...state, value: raw, readOnly: true };
  let value = normalizeValue(node, raw);
  if (info.calc) {
    // forms §5: a result that is NaN or undefined is ignored, leaving the stored value.
    const result = calculatedValue(info, info.calc.evaluate(env));
    if (result !== undefined) {
      value = normalizeValue(node, result);
      state.calculated = true;
    }
  }
  state.value = value;
  const message = validateItem(run, info, value);
  if (message !== null) state.errors.push(message);
  // Cross-field checks wait until the item's own value is valid: one message per problem.
  if (info.checks.length > 0 && message === null) {
    run.deferredChecks.push(() => {
      for (const { check, expression } of info.checks) {
        // A check on a masked identifier is the server's to judge, with the stored value.
        if (readsMask(expression.dependencies, env)) continue;
        const verdict = expression.evaluate(env);
        // An undecidable check (blank inputs) raises nothing until the data is there.
        if (verdict !== null && !truthy(verdict)) {
          (check.severity === 'warning' ? state.warnings : state.errors).push(check.message);
        }
      }
    });
  }
  const siteRange = info.rowOwner ? undefined : run.context.referenceRanges?.[node.name];
  if (siteRange || hasReferenceRange(node.option)) {
    // The range is written in the first unit; a value entered in another unit is judged in that unit.
    state.range = judgedIndicator(value, node.option, run.context.gender ?? null, chosenUnit(info, source), siteRange);
  }
  if (info.additionIndexes.length > 0 && isChoiceType(node.type)) {
    state.additionVisible = chosenIndexes(node, value).some((i) => info.additionIndexes.includes(i));
  }
  return state;
}

function validateItem(run: Run, info: NodeInfo, value: unknown): string | null {
  const { node, rule } = info;
  const base = validateField(value, rule);
  if (base !== null || isEmptyValue(value)) return base;
  const error = itemTypeOf(node.type).validate?.(value, node, { today: run.clock.today }) ?? null;
  return error === null ? null : rule.errorMsg || error;
}

/** Whether an issue is a required item (or a required cell of a list-group or table row) left blank. */
export function isMissingRequired(state: FormState, issue: FormIssue): boolean {
  const item =
    issue.container !== undefined
      ? state.items[issue.container]?.rows?.[issue.row ?? -1]?.[issue.item]
      : state.items[issue.item];
  return Boolean(item?.required) && isEmptyValue(item?.value);
}

/**
 * The errors that refuse a save (forms §4, CRF-22/CRF-27). A form that is, or is being, submitted must
 * be complete: every error counts, blank required items and blank required row cells alike. A form
 * still in progress may be saved with blanks; its other errors (a wrong type, a range, a failed check)
 * still refuse it.
 */
export function blockingErrors(state: FormState, complete: boolean): FormIssue[] {
  return complete ? state.errors : state.errors.filter((issue) => !isMissingRequired(state, issue));
}

/**
 * Values for a new, empty form: every defaultValue, with "now" as today or the current date-time
 * in the item's format (forms §5). Applied once when a form is created, never on evaluation, so
 * a cleared default stays cleared.
 */
export function initialValues(definition: CrfDefinition, context: EvaluationContext): Record<string, unknown> {
  const compiled = getCompiledForm(definition);
  const out: Record<string, unknown> = {};
  for (const info of compiled.nodes) {
    const { node } = info;
    const dv = node.option.defaultValue;
    if (
      info.rowOwner ||
      !node.name ||
      dv === undefined ||
      dv === '' ||
      !isValueType(node.type) ||
      isRowType(node.type)
    ) {
      continue;
    }
    if (dv === 'now') {
      const now = itemTypeOf(node.type).now?.(node, context.now, context.timeZone ?? DEFAULT_TIME_ZONE);
      if (now !== undefined) out[node.name] = now;
      continue;
    }
    out[node.name] = normalizeValue(node, node.type === 'checkbox' ? String(dv) : dv);
  }
  return out;
}
