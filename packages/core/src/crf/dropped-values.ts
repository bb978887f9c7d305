import type { NodeInfo } from './compile-form.js';
import { isRowType, isValueType, type CrfDefinition } from './crf-definition.schema.js';
import { additionKey, getCompiledForm, type FormIssue, type FormState, type ItemState } from './evaluate-form.js';
import { isEmptyValue } from './field-rules.js';
import { sameValue } from './record-values.js';
import { readRows } from './value-shapes.js';

/** Why a value the writer gave would not be stored: the item is hidden by its display conditions. */
export const HIDDEN_VALUE_MSG = '题目按显示条件（跳转逻辑）隐藏，隐藏的题目不保存值，不能填写';
/** Why an addition text would not be stored: no chosen option asks for it. */
export const ADDITION_VALUE_MSG = '所选选项不需要注明，“其他（请注明）”的内容不保存，不能填写';

/**
 * The values a writer gives that the rules would not store: a new value (one other than the stored) for an item its
 * display conditions hide, or an addition text (其他（请注明）) when no chosen option shows the box. Every writer is
 * refused them (judgeSave) rather than having them cleared unseen; a stored value that the writer's other changes
 * hide is cleared, as the form page clears it, and audited. The form page never sends either: it keeps the
 * engine's values, hidden ones already cleared.
 */
export function valuesDroppedByRules(
  definition: CrfDefinition,
  sent: Readonly<Record<string, unknown>>,
  stored: Readonly<Record<string, unknown>>,
  evaluated: FormState,
): FormIssue[] {
  const issues: FormIssue[] = [];
  const givenNew = (key: string, from: Readonly<Record<string, unknown>>, before: Readonly<Record<string, unknown>>) =>
    !isEmptyValue(from[key]) && !sameValue(from[key], before[key]);
  const judge = (
    info: NodeInfo,
    state: ItemState | undefined,
    from: Readonly<Record<string, unknown>>,
    before: Readonly<Record<string, unknown>>,
    where: { container?: string; row?: number },
  ) => {
    const name = info.node.name;
    if (!name || !state) return;
    if (!state.visible && givenNew(name, from, before)) {
      issues.push({ item: name, ...where, message: HIDDEN_VALUE_MSG, severity: 'error' });
    }
    const addition = additionKey(name);
    if (!state.additionVisible && givenNew(addition, from, before)) {
      issues.push({ item: addition, ...where, message: ADDITION_VALUE_MSG, severity: 'error' });
    }
  };
  const compiled = getCompiledForm(definition);
  for (const info of compiled.nodes) {
    if (info.rowOwner || !isValueType(info.node.type)) continue;
    const state = evaluated.items[info.key];
    judge(info, state, sent, stored, {});
    if (!isRowType(info.node.type) || !state?.visible) continue;
    const storedRows = readRows(stored[info.node.name]);
    readRows(sent[info.node.name]).forEach((row, index) => {
      for (const member of compiled.nodes.filter((n) => n.rowOwner === info)) {
        judge(member, state.rows?.[index]?.[member.key], row, storedRows[index] ?? {}, {
          container: info.node.name,
          row: index,
        });
      }
    });
  }
  return issues;
}
