import { getCompiledForm } from './compiled-form-cache.js';
import { isRowType, isValueType, type CrfDefinition } from './crf-definition.schema.js';
import { DEFAULT_TIME_ZONE } from './date-time.js';
import type { EvaluationContext } from './form-state.js';
import { itemTypeOf } from './item-types/registry.js';
import { normalizeValue } from './value-shapes.js';

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
