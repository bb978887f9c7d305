import { describe, expect, it } from 'vitest';
import { conditionIssue, OPERATORS_BY_KIND } from './search.js';
import { MISSING_SEARCH_OPERATORS } from './search-missing.js';

const allowed = [...OPERATORS_BY_KIND.choice, ...MISSING_SEARCH_OPERATORS];

describe('缺失原因 conditions in data retrieval (issue 37)', () => {
  it.each([
    ['missing', ['ND'], null],
    ['missing', ['ND', 'UNK'], null],
    ['missing', [], '请选择缺失原因'],
    ['missing', ['nd'], '缺失原因代码无效'],
    ['missingAny', [], null],
    ['missingAny', ['ND'], '“为空/不为空”不需要值'],
  ] as const)('%s %j → %s', (operator, values, issue) => {
    // A code is no choice option of the item: 缺失原因为 on a choice item is judged on codes only.
    expect(conditionIssue('choice', operator, values, allowed, ['1', '2'])).toBe(issue);
  });

  it('is refused where not offered (a list group column, or by kind alone)', () => {
    expect(conditionIssue('number', 'missingAny', [])).toBe('该字段不支持“已标记缺失”');
  });
});
