import type { CompiledForm } from '../compile-form.js';
import { isValueType } from '../crf-definition.schema.js';
import { missingMarkText, type MissingMarks } from '../missing-codes.js';
import { itemTitle } from '../record-values.js';
import type { CrfNode } from '../crf-definition.schema.js';
import type { PlannedChange } from './amendment-types.js';

/**
 * 缺失原因 (issue 37) across a version change. A record's marks go to the engine with its values (so a required item
 * marked missing is complete and raises nothing, as at a save); the marks kept are the new evaluation's (a shown,
 * top-level value item). A mark dropped is said explicitly: its item removed from the form (a mark means nothing
 * without its item, and would make the next save refuse the record), or hidden by the new display conditions
 * (cleared as the save clears it). Both change what is stored, so both are kind 'hidden' or 'removed' with the mark
 * as old value ([缺失:ND]) and null as new.
 */
export const MARK_MSG = {
  removed: '新版本没有该题目：缺失标记清除',
  hidden: '新版本的显示条件隐藏该题目：缺失标记按保存规则清除',
} as const;

export function droppedMarkChanges(
  stored: MissingMarks,
  kept: MissingMarks,
  to: CompiledForm,
  oldNodes: ReadonlyMap<string, CrfNode>,
): PlannedChange[] {
  return Object.entries(stored)
    .filter(([name]) => !Object.hasOwn(kept, name))
    .map(([name, code]) => {
      const info = to.byName.get(name);
      const present = Boolean(info && !info.rowOwner && isValueType(info.node.type));
      return {
        itemName: name,
        label: itemTitle(oldNodes, name),
        kind: present ? 'hidden' : 'removed',
        oldValue: missingMarkText(code),
        newValue: null,
        message: present ? MARK_MSG.hidden : MARK_MSG.removed,
      };
    });
}
