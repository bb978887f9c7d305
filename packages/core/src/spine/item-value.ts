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
