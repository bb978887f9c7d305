import type { MissingCode } from '../missing-codes.js';
import { missingKey } from '../missing-codes.js';
import type { OdmItemGroupData } from './odm-clinical.js';
import type { OdmFormLayout } from './odm-export.js';
import { attrs, escAttr, translated } from './odm-write.js';

/**
 * 缺失原因 (issue 37) in ODM 1.3.2. A marked item has no value, so its ItemData carries no Value and an Annotation
 * with a Flag naming the code: `<Annotation SeqNum="1"><Flag><FlagValue CodeListOID="CL.MISSING">ND</FlagValue>
 * <FlagType CodeListOID="CL.FLAGTYPE">MISSING</FlagType></Flag></Annotation>`. In the 1.3.2 schema a Flag sits in an
 * Annotation (ItemData → Annotation → Comment?, Flag*), not directly in ItemData. The code lists go into the
 * MetaDataVersion beside the forms' own.
 */
export const ODM_MISSING_CODE_LIST = 'CL.MISSING';
export const ODM_FLAG_TYPE_CODE_LIST = 'CL.FLAGTYPE';
const FLAG_TYPE = 'MISSING';

/** The two CodeLists a marked item's Flag refers to: the study's codes (decoded by their names) and the flag type. */
export function odmMissingCodeLists(codes: readonly MissingCode[]): string[] {
  if (codes.length === 0) return [];
  const item = (value: string, text: string) =>
    `<CodeListItem CodedValue="${escAttr(value)}"><Decode>${translated(text)}</Decode></CodeListItem>`;
  return [
    `<CodeList${attrs({ OID: ODM_MISSING_CODE_LIST, Name: '缺失原因', DataType: 'text' })}>${codes.map((c) => item(c.code, c.label)).join('')}</CodeList>`,
    `<CodeList${attrs({ OID: ODM_FLAG_TYPE_CODE_LIST, Name: '标记类型', DataType: 'text' })}>${item(FLAG_TYPE, '缺失原因')}</CodeList>`,
  ];
}

/** An ItemData's content for a mark (after its attributes, no Value). */
export const odmMissingFlag = (code: string) =>
  `<Annotation SeqNum="1"><Flag><FlagValue CodeListOID="${ODM_MISSING_CODE_LIST}">${escAttr(code)}</FlagValue><FlagType CodeListOID="${ODM_FLAG_TYPE_CODE_LIST}">${FLAG_TYPE}</FlagType></Flag></Annotation>`;

/**
 * A record's groups (odmRecordGroups) with an ItemData for each marked item of the form, read from `<item>_missing`
 * (valuesWithMarks). A multiple choice is flagged on each of its option items. Only a form's own items are marked.
 */
export function withOdmMissingMarks(
  layout: OdmFormLayout,
  groups: readonly OdmItemGroupData[],
  values: Readonly<Record<string, unknown>>,
): OdmItemGroupData[] {
  const out = groups.map((g) => ({ ...g, items: [...g.items] }));
  for (const [key, place] of layout.items) {
    const code = values[missingKey(key)];
    if (typeof code !== 'string' || code === '' || place.repeating) continue;
    const oids = place.choiceOids ? [...place.choiceOids.values()] : [place.itemOid];
    let group = out.find((g) => g.groupOid === place.groupOid && g.repeatKey === undefined);
    if (!group) {
      group = { groupOid: place.groupOid, items: [] };
      out.push(group);
    }
    group.items.push(...oids.map((itemOid) => ({ itemOid, value: '', missing: code })));
  }
  return out;
}
