/**
 * Our own action tags in a REDCap dictionary's Field Annotation, for what REDCap has no column for but our import
 * must get back: a form's title (REDCap names a form by its machine name only), a list group or table written as a
 * form of its own, and the mainland mobile rule REDCap cannot validate. REDCap leaves action tags it does not know
 * alone (the annotation is free text to it), so a dictionary carrying them uploads to REDCap unchanged.
 */
import { quoteRedcap, UnprintableError } from './redcap-logic-export.js';

const FORM = '@ECRF-FORM';
const ROWS = '@ECRF-ROWS';
export const ECRF_PHONE_TAG = '@ECRF-PHONE';
/** The field note written beside the mobile rule's tag, for the REDCap user. */
export const PHONE_NOTE = '中国大陆手机号（11位）';

/** Where a list group's or table's own form goes back: its form, type, name and the variable it follows there. */
export interface RowsOrigin {
  form: string;
  type: 'listGroup' | 'table';
  name: string;
  title: string;
  /** The variable of the form's field it comes after (null: at the start of the form). */
  after: string | null;
}

/** `@ECRF-FORM='人口学资料'`, or null when the title holds both kinds of quotes (REDCap's quoting has no escape). */
export function formTitleTag(title: string): string | null {
  return quoted(FORM, title);
}

export function rowsOriginTag(origin: RowsOrigin): string | null {
  return quoted(ROWS, JSON.stringify(origin));
}

function quoted(tag: string, value: string): string | null {
  try {
    return `${tag}=${quoteRedcap(value)}`;
  } catch (error) {
    if (error instanceof UnprintableError) return null;
    throw error;
  }
}

export interface EcrfTags {
  formTitle: string | null;
  rows: RowsOrigin | null;
  phone: boolean;
  /** The annotation without our tags. */
  rest: string;
}

const valueOf = (tag: string) => new RegExp(`${tag}\\s*=\\s*(['"])(.*?)\\1`);

/** Our tags in an annotation, and what is left of it for REDCap's own tags. */
export function readEcrfTags(annotation: string): EcrfTags {
  let rest = annotation;
  const take = (tag: string): string | null => {
    const m = valueOf(tag).exec(rest);
    if (!m) return null;
    rest = rest.replace(m[0], '');
    return m[2]!;
  };
  const formTitle = take(FORM);
  const rowsText = take(ROWS);
  const phone = new RegExp(`${ECRF_PHONE_TAG}\\b(?!-)`).test(rest);
  rest = rest.replace(new RegExp(`${ECRF_PHONE_TAG}\\b(?!-)`, 'g'), '');
  return {
    formTitle,
    rows: rowsText === null ? null : parseOrigin(rowsText),
    phone,
    rest: rest.replace(/\s+/g, ' ').trim(),
  };
}

function parseOrigin(text: string): RowsOrigin | null {
  try {
    const o = JSON.parse(text) as Partial<RowsOrigin>;
    if (typeof o.form !== 'string' || typeof o.name !== 'string') return null;
    return {
      form: o.form,
      type: o.type === 'table' ? 'table' : 'listGroup',
      name: o.name,
      title: typeof o.title === 'string' ? o.title : '',
      after: typeof o.after === 'string' ? o.after : null,
    };
  } catch {
    return null;
  }
}
