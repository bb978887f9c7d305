import type { SearchOperator } from './search.js';

/**
 * 缺失原因 (issue 37) in data retrieval. An item holds one of three things: a value, a missing-data mark, or nothing.
 * 缺失原因为 (`missing`) finds items marked with one of the chosen codes, 已标记缺失 (`missingAny`) with any code.
 * 为空 means nothing at all (neither a value nor a mark: the gaps a data manager still has to chase), 不为空 means a
 * value, so a marked item matches neither. Only a form's own items are marked (a list group's cells never are), so
 * only they offer these operators.
 */
export const MISSING_SEARCH_OPERATORS = ['missing', 'missingAny'] as const satisfies readonly SearchOperator[];

const CODE = /^[A-Z0-9_]{1,10}$/;

/** 缺失原因为: one or more codes of the code format (a code the study has since removed may still be on records). */
export function missingConditionIssue(values: readonly string[]): string | null {
  if (values.length === 0) return '请选择缺失原因';
  if (values.some((v) => !CODE.test(v.trim()))) return '缺失原因代码无效';
  return null;
}
