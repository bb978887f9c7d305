/**
 * One unit of a form evaluated: an item, or a list group or table with each of its rows (forms §4, §5): its
 * visibility, value, calculation, validation, reference-range indicator and the cross-field checks it defers.
 * evaluate-form.ts decides which units run, in which order, and gathers their states.
 */
import type { CompiledForm, NodeInfo, Unit } from './compile-form.js';
import { isChoiceType, isRowType, isValueType } from './crf-definition.schema.js';
import { CRF_MSG } from './crf-messages.js';
import { additionKey, unitKey } from './companion-value-keys.js';
import { toValue, truthy, type ExpressionEnv, type Value } from './expression/index.js';
import { isEmptyValue, validateField } from './field-rules.js';
import type { EvaluationContext, ItemState } from './form-state.js';
import { isIdentifierMask } from './identifier-mask.js';
import { itemTypeOf } from './item-types/registry.js';
import { isOn } from './options.js';
import { judgedIndicator } from './lab-ranges.js';
import { hasReferenceRange } from './reference-range.js';
import { selectedUnit } from './units.js';
import { convertValue, formatCalculated, parseConverterRule } from './value-converter.js';
import { normalizeValue, readRows, type RowValues } from './value-shapes.js';
import { chosenIndexes, isShownBySpecRules, type TriggerLookup } from './visibility.js';

/** One evaluation's working state, shared by its units. */
export interface Run {
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

/** The unit chosen in an item's unit selector, when it may stand (units.ts, selectedUnit). */
function chosenUnit(info: NodeInfo, input: Readonly<Record<string, unknown>>): string | undefined {
  const name = info.node.name;
  return name ? selectedUnit(info.node.option ?? {}, input[unitKey(name)]) : undefined;
}

export function evaluateUnit(run: Run, unit: Unit) {
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
