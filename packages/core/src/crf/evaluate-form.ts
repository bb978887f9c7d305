import type { CompiledForm, Unit } from './compile-form.js';
import { getCompiledForm } from './compiled-form-cache.js';
import { additionKey, unitKey } from './companion-value-keys.js';
import type { CrfDefinition } from './crf-definition.schema.js';
import { DEFAULT_TIME_ZONE, nowString, todayString } from './date-time.js';
import { evaluateUnit, type Run } from './evaluate-item.js';
import { toValue, type ExpressionEnv, type Value } from './expression/index.js';
import type { EvaluateOptions, EvaluationContext, FormIssue, FormState, ItemState } from './form-state.js';
import type { RowValues } from './value-shapes.js';
import type { TriggerLookup } from './visibility.js';

// The engine's public surface: its importers and index.ts read it all from here, wherever a piece now lives.
export {
  blockingErrors,
  CRF_EDIT_PERMISSIONS,
  isFormEditable,
  isMissingRequired,
  type EvaluateOptions,
  type EvaluationContext,
  type FormIssue,
  type FormState,
  type ItemState,
} from './form-state.js';
export { additionKey, hasAddition, unitKey } from './companion-value-keys.js';
export { formReferencesOf, getCompiledForm } from './compiled-form-cache.js';
export { initialValues } from './initial-values.js';

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
