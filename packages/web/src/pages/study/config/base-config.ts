import { DEFAULT_BASE_CONFIG } from '@ecrf/core';
import { BASE_FIELD_NAMES, type BaseConfigField, type BaseFieldName } from '../../../api/study.api';
import { STUDY_CONFIG_TEXT } from '../../../locales/study-config.zh-CN';

/** A patient is known by its code and name: these two are always shown and always required. */
export const LOCKED_FIELDS: ReadonlySet<BaseFieldName> = new Set(['identificationCode', 'subjectName']);
/** The age is computed from the birth date (platform §5), so it is never typed and never required. */
export const COMPUTED_FIELDS: ReadonlySet<BaseFieldName> = new Set(['age']);
/** platform §5: code, name, gender and disease are required unless a study says otherwise. */
const REQUIRED_BY_DEFAULT: ReadonlySet<BaseFieldName> = new Set([
  'identificationCode',
  'subjectName',
  'gender',
  'diseaseCode',
]);

export function defaultField(name: BaseFieldName): BaseConfigField {
  // The ID number is off unless a study turns it on (PIPL: collect only what the study needs).
  const display = DEFAULT_BASE_CONFIG.find((f) => f.name === name)?.display ?? true;
  return { name, header: STUDY_CONFIG_TEXT.fieldLabels[name], display, required: REQUIRED_BY_DEFAULT.has(name) };
}

/** One field's rules applied: locked fields on, computed ones optional, a hidden field never required. */
export function settleField(field: BaseConfigField): BaseConfigField {
  if (LOCKED_FIELDS.has(field.name)) return { ...field, display: true, required: true };
  const required = field.display && field.required && !COMPUTED_FIELDS.has(field.name);
  return { ...field, required };
}

/**
 * The patient fields of a study's base config, in the dialog's order: what the study
 * stored, defaults for fields it never stored, unknown names dropped, blank headers replaced
 * by the standard label.
 */
export function normalizeBaseConfig(stored: readonly Partial<BaseConfigField>[] | null | undefined): BaseConfigField[] {
  const byName = new Map((stored ?? []).map((field) => [field.name, field]));
  return BASE_FIELD_NAMES.map((name) => {
    const base = defaultField(name);
    const saved = byName.get(name);
    if (!saved) return settleField(base);
    return settleField({
      name,
      header: saved.header?.trim() || base.header,
      display: saved.display ?? base.display,
      required: saved.required ?? base.required,
    });
  });
}
