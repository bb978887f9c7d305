import type { CrfNode } from '../crf/crf-definition.schema.js';
import { svaOffset } from './angles.js';
import { SPINE_MEASURES, SPINE_MEASURE_DEFINITIONS, roundLength, slipRatio, type SpineMeasure } from './measure.js';
import { roundMeasurement } from './round.js';
import { spineManualDataSchema, type SpineManualData } from './schema.js';

/** The message of a spine measurement value that does not hold the measurement data of forms §3 (ours). */
export const SPINE_VALUE_INVALID = '脊柱测量数据格式有误';

/** The stored value (JSON text, or the object) of a `spineMeasure` item read as measurement data, or null. */
export function readSpineMeasure(raw: unknown): SpineManualData | null {
  let value: unknown = raw;
  if (typeof raw === 'string') {
    if (raw.trim() === '') return null;
    try {
      value = JSON.parse(raw) as unknown;
    } catch {
      return null;
    }
  }
  const parsed = spineManualDataSchema.safeParse(value);
  return parsed.success ? parsed.data : null;
}

/**
 * Why a `spineMeasure` item's value is refused on save (forms §3, SPM-02, SPM-03, SPM-07): not JSON, or not the
 * measurement data (a schema issue's own message when it has one of ours, e.g. 线段条数已达上限). Null when valid.
 */
export function spineMeasureError(raw: unknown): string | null {
  let value: unknown = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw) as unknown;
    } catch {
      return SPINE_VALUE_INVALID;
    }
  }
  const parsed = spineManualDataSchema.safeParse(value);
  if (parsed.success) return null;
  const custom = parsed.error.issues.find((issue) => issue.code === 'custom');
  return custom?.message ?? SPINE_VALUE_INVALID;
}

/**
 * What an ordinary item named in a `spineMeasure` item's `measureItems` receives (docs/spine-tools.md): for
 * `"TK"` etc. the measure's number (angle tools the signed integer angle, SVA the signed horizontal distance from
 * the S1 corner to the C7 plumb line in its unit, 2 decimals, ISH and CVH the slip ratio to 2 decimals), for
 * `"TK.diagnosis"` the diagnosis text; null when there is none.
 */
export function spineMeasureTargetValue(raw: unknown, key: string): number | string | null {
  const data = readSpineMeasure(raw);
  const [name, field] = key.split('.');
  if (!data || !(SPINE_MEASURES as readonly string[]).includes(name ?? '')) return null;
  const measure = data[name as SpineMeasure];
  if (!measure) return null;
  if (field === 'diagnosis') return measure.diagnosis || null;
  if (field !== undefined) return null;
  const def = SPINE_MEASURE_DEFINITIONS[name as SpineMeasure];
  if (def.kind === 'angle') return measure.angle;
  if (def.lineCodes) {
    const ratio = slipRatio(measure.lines);
    return ratio === null ? null : roundMeasurement(ratio, 2);
  }
  const line = measure.lines[0];
  return line ? roundLength(svaOffset(line, data.facing) * measure.scale) + 0 : null;
}

/**
 * The calculations a definition's `spineMeasure` items imply through `measureItems` (`{ "TK": "tk_angle",
 * "TK.diagnosis": "tk_dx" }`): target item → `spineMeasure(item, "TK")`, run like crfRules, so the targets are
 * calculated, read-only, saved, searched, exported and range-checked as ordinary items.
 */
export function spineMeasureRules(nodes: readonly CrfNode[]): Array<{ target: string; formula: string; path: string }> {
  const out: Array<{ target: string; formula: string; path: string }> = [];
  const visit = (node: CrfNode, path: string) => {
    const targets = node.option.measureItems;
    if (node.type === 'spineMeasure' && node.name && targets) {
      for (const [key, target] of Object.entries(targets)) {
        if (typeof target === 'string' && target.trim() !== '' && /^[A-Z]+(\.diagnosis)?$/.test(key)) {
          out.push({
            target: target.trim(),
            formula: `spineMeasure(${node.name}, "${key}")`,
            path: `${path}.option.measureItems.${key}`,
          });
        }
      }
    }
    node.children.forEach((child, i) => visit(child, `${path}.children[${i}]`));
  };
  nodes.forEach((node, i) => visit(node, `children[${i}]`));
  return out;
}

/**
 * A spine measurement as a person reads it (print, overview, audit, exports): per measure drawn, its number and
 * diagnosis, e.g. `TK 30°（胸椎后凸正常）；SVA 4 cm（矢状面轻度失衡）`. An unreadable value reads as it is stored.
 */
export function spineMeasureText(raw: unknown): string {
  const data = readSpineMeasure(raw);
  if (!data) return typeof raw === 'string' ? raw : JSON.stringify(raw);
  const parts: string[] = [];
  for (const name of SPINE_MEASURES) {
    const measure = data[name];
    if (!measure) continue;
    const value = spineMeasureTargetValue(data, name);
    const def = SPINE_MEASURE_DEFINITIONS[name];
    const unit = def.kind === 'angle' ? '°' : def.lineCodes || measure.unit === 'none' ? '' : ` ${measure.unit}`;
    const number = value === null ? '—' : `${value}${unit}`;
    parts.push(measure.diagnosis ? `${name} ${number}（${measure.diagnosis}）` : `${name} ${number}`);
  }
  return parts.join('；');
}

/**
 * A spine measurement value (forms §3) is kept as the JSON text of the measurement data; an object is written as
 * JSON, an empty text is no value. The engine checks the shape against spineManualDataSchema.
 */
export function writeSpineMeasure(raw: unknown): string | undefined {
  if (typeof raw === 'string') return raw.trim() === '' ? undefined : raw;
  return typeof raw === 'object'
    ? JSON.stringify(raw)
    : typeof raw === 'number' || typeof raw === 'boolean'
      ? String(raw)
      : '';
}
