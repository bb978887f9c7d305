/** Our forms as ODM 1.3.2 metadata, with Alias elements for what ODM cannot say (see odm.ts, odm-write.ts). */
import {
  canHaveChildren,
  isChoiceType,
  isRowType,
  type CrfDefinition,
  type CrfNode,
  type ItemOption,
} from '../crf-definition.schema.js';
import { additionKey, hasAddition } from '../evaluate-form.js';
import { choicesOf, isOn, toNumber, unitsOf } from '../options.js';
import { additionTitle, nodesByName } from '../record-values.js';
import { additionCondition, showCondition } from '../trigger-expression.js';
import { itemTypeOf } from '../item-types/registry.js';
import { ECRF_CONTEXT, exportCondition, exportMethod } from './odm-expression.js';
import { attrs, ecrfAliases, esc, escAttr, translated } from './odm-write.js';
import type { MissingCode } from '../missing-codes.js';
import { odmMissingCodeLists } from './odm-missing.js';

export const ODM_NS = 'http://www.cdisc.org/ns/odm/v1.3';
/** The namespace earlier exports gave our attributes; files now carry Alias elements instead (odm-write.ts). */
export const ECRF_NS = 'urn:ecrf:crf-definition:1';

const oidPart = (s: string) => s.replace(/[^A-Za-z0-9_.-]/g, '_') || 'X';
const filled = (s: unknown): s is string => typeof s === 'string' && s.trim() !== '';

const dataTypeOf = (node: CrfNode): string => itemTypeOf(node.type).odmDataType(node);

/**
 * A multiple choice (checkbox, multi-select) is one boolean ItemDef per option, `<item>___<code>`, as REDCap
 * writes it and as our tabular exports name their 0/1 columns: ODM 1.3.2 has no multi-valued item.
 */
export const isPerChoice = (node: CrfNode) =>
  (node.type === 'checkbox' || node.type === 'multiSelect') && choicesOf(node.option).length > 0;

export interface OdmExportOptions {
  studyOid?: string;
  studyName?: string;
  /** The study's description (default: its name); a test export says 测试数据 here. */
  studyDescription?: string;
  /** Creation time written into the file; the caller's clock. */
  now?: Date;
  /**
   * Study events (our stages) for a file that carries ClinicalData: a Protocol and one StudyEventDef each, with
   * FormRefs to the forms (by index into the definitions). The definition export leaves them out.
   */
  events?: ReadonlyArray<{ oid: string; name: string; formIndexes: readonly number[] }>;
  /** Indexes of forms that repeat (several records per patient): their FormDef says Repeating="Yes". */
  repeatingForms?: ReadonlySet<number>;
  /** The study's missing-data codes: their CodeLists, for the Flags of marked items (odm-missing.ts). */
  missingCodes?: readonly MissingCode[];
}

/** Where one item's values go in ODM ClinicalData: its ItemOID inside its ItemGroupOID. */
export interface OdmItemPlace {
  /** A multiple choice's OID is the stem its options' OIDs extend: our logic names the item by it. */
  itemOid: string;
  groupOid: string;
  /** The group repeats (a list group's or table's rows): one ItemGroupData per row, keyed by the row number. */
  repeating: boolean;
  /** A multiple choice: the boolean item of each option, by code (1 chosen, 0 not). */
  choiceOids?: ReadonlyMap<string, string>;
}

/** The OIDs the metadata gave each form and item, so ClinicalData can be written against it. */
export interface OdmFormLayout {
  formOid: string;
  /** By the key a record stores the value under: every value item, and the addition text beside a choice. */
  items: Map<string, OdmItemPlace>;
  /** A row group (list group or table) by its name: the group's OID, its items by the key a row stores them under. */
  rowGroups: Map<string, { groupOid: string; items: Map<string, OdmItemPlace> }>;
}

/** ODM 1.3.2 XML of the forms' metadata. */
export function exportOdm(definitions: readonly CrfDefinition[], options: OdmExportOptions = {}): string {
  const { head } = odmMetadata(definitions, options);
  return `${head}\n</ODM>`;
}

/**
 * The ODM document up to and including </Study> (ClinicalData, which follows Study inside ODM, and the closing
 * </ODM> are the caller's), with the OIDs given to each definition's form and items, in definition order.
 */
export function odmMetadata(
  definitions: readonly CrfDefinition[],
  options: OdmExportOptions = {},
): { head: string; studyOid: string; metaDataVersionOid: string; layouts: OdmFormLayout[] } {
  const layouts: OdmFormLayout[] = [];
  const studyName = options.studyName ?? 'EDC Study';
  const formDefs: string[] = [];
  const groupDefs: string[] = [];
  const itemDefs: string[] = [];
  const codeLists: string[] = [];
  const conditionDefs: string[] = [];
  const methodDefs: string[] = [];
  const units = new Map<string, string>();
  // OIDs are unique in a MetaDataVersion; names that differ only in characters an OID cannot hold
  // (Chinese names) would otherwise collide.
  const usedOids = new Set<string>();
  const unique = (base: string) => {
    let oid = base;
    for (let n = 2; usedOids.has(oid); n += 1) oid = `${base}.${n}`;
    usedOids.add(oid);
    return oid;
  };
  const condition = (oid: string, name: string, description: string, showWhen: string, oidOf: OidOf) => {
    const expression = exportCondition(showWhen, oidOf);
    if (expression === null) return undefined;
    const conditionOid = unique(`COND.${oid}`);
    conditionDefs.push(
      `<ConditionDef${attrs({ OID: conditionOid, Name: name })}><Description>${translated(`${description}：${showWhen}`)}</Description><FormalExpression Context="${ECRF_CONTEXT}">${esc(expression)}</FormalExpression></ConditionDef>`,
    );
    return conditionOid;
  };

  definitions.forEach((definition, formIndex) => {
    const formKey = oidPart(String(definition.id ?? `FORM${formIndex + 1}`));
    const groupRefs: string[] = [];
    const mainItems: string[] = [];
    const nodeOfName = nodesByName(definition);
    const nodeOf = (name: string) => nodeOfName.get(name);
    // Every node's OID first, so that logic may name an item placed after it.
    const mainOid = definition.children.some((c) => !canHaveChildren(c.type)) ? unique(`IG.${formKey}.MAIN`) : '';
    const oids = new Map<CrfNode, string>();
    const choiceOids = new Map<CrfNode, Array<{ code: string; oid: string }>>();
    const additionOids = new Map<CrfNode, string>();
    const oidOfName = new Map<string, string>();
    let unnamed = 0;
    const layout: OdmFormLayout = { formOid: '', items: new Map(), rowGroups: new Map() };
    layouts.push(layout);
    const assign = (node: CrfNode, groupOid: string, row: Map<string, OdmItemPlace> | null) => {
      const prefix = canHaveChildren(node.type) ? 'IG' : 'I';
      const oid = unique(`${prefix}.${formKey}.${oidPart(node.name || `N${(unnamed += 1)}`)}`);
      oids.set(node, oid);
      if (node.name && !oidOfName.has(node.name)) oidOfName.set(node.name, oid);
      if (!canHaveChildren(node.type) && node.name) {
        const perChoice = isPerChoice(node)
          ? choicesOf(node.option).map((c) => ({ code: c.value, oid: unique(`${oid}___${oidPart(c.value)}`) }))
          : undefined;
        if (perChoice) choiceOids.set(node, perChoice);
        const places = row ?? layout.items;
        const place: OdmItemPlace = { itemOid: oid, groupOid, repeating: row !== null };
        if (perChoice) {
          const byCode = new Map<string, string>();
          for (const c of perChoice) if (!byCode.has(c.code)) byCode.set(c.code, c.oid);
          place.choiceOids = byCode;
        }
        if (!places.has(node.name)) places.set(node.name, place);
        if (hasAddition(node)) {
          const additionOid = unique(`I.${formKey}.${oidPart(additionKey(node.name))}`);
          additionOids.set(node, additionOid);
          const key = additionKey(node.name);
          if (!places.has(key)) places.set(key, { itemOid: additionOid, groupOid, repeating: row !== null });
        }
      }
      let childRow = row;
      if (isRowType(node.type) && node.name && !row) {
        childRow = new Map();
        layout.rowGroups.set(node.name, { groupOid: oid, items: childRow });
      }
      node.children.forEach((child) => assign(child, canHaveChildren(node.type) ? oid : groupOid, childRow));
    };
    definition.children.forEach((child) => assign(child, mainOid, null));
    const oidOf: OidOf = (name) => oidOfName.get(name);

    /**
     * showIf with the native triggers, and calc, as a ConditionDef and a MethodDef, the English title as a
     * TranslatedText: what ODM says is left out of our own options. Triggers stay in the options too (the
     * importer takes them off the condition again, trigger-expression.ts), so a form comes back as it was.
     */
    const standardParts = (node: CrfNode, oid: string, perChoice = false) => {
      const option: ItemOption = { ...node.option };
      const ref: { MethodOID?: string; CollectionExceptionConditionOID?: string } = {};
      const label = node.name || oid;
      const showWhen = showCondition(option, nodeOf);
      if (showWhen !== null) {
        ref.CollectionExceptionConditionOID = condition(
          oid,
          `${label} 不采集条件`,
          '不满足显示条件时不采集',
          showWhen,
          oidOf,
        );
        if (ref.CollectionExceptionConditionOID !== undefined) delete option.showIf;
      }
      // A calculation cannot fill one boolean per option: a multiple choice keeps its calc in its options.
      if (filled(option.calc) && !canHaveChildren(node.type) && !perChoice) {
        const expression = exportMethod(option.calc, oidOf);
        if (expression !== null) {
          ref.MethodOID = unique(`MT.${oid}`);
          methodDefs.push(
            `<MethodDef${attrs({ OID: ref.MethodOID, Name: `${label} 计算`, Type: 'Computation' })}><Description>${translated(`计算公式：${option.calc}`)}</Description><FormalExpression Context="${ECRF_CONTEXT}">${esc(expression)}</FormalExpression></MethodDef>`,
          );
          delete option.calc;
        }
      }
      const english = !canHaveChildren(node.type) && !perChoice && filled(option.titleEn) ? option.titleEn : undefined;
      if (english !== undefined) delete option.titleEn;
      return { option, ref, english };
    };

    /** An ItemRef in a group; OrderNumbers run 1, 2, … and the node's place among its siblings is kept apart. */
    const itemRef = (
      groupItems: string[],
      itemOid: string,
      mandatory: boolean,
      extra: Record<string, string | undefined>,
    ) => {
      groupItems.push(
        `<ItemRef${attrs({ ItemOID: itemOid, Mandatory: mandatory ? 'Yes' : 'No', OrderNumber: groupItems.length + 1, ...extra })}/>`,
      );
    };

    const itemDef = (node: CrfNode, order: number, groupItems: string[]) => {
      const oid = oids.get(node)!;
      const o = node.option;
      const perChoice = choiceOids.get(node);
      const { option, ref, english } = standardParts(node, oid, perChoice !== undefined);
      const crfOrder = order === groupItems.length ? undefined : order;
      const identity = {
        CrfType: node.type,
        CrfName: node.name,
        CrfId: node.id,
        CrfOption: JSON.stringify(option),
      };
      if (perChoice) {
        const title = node.title || node.name;
        choicesOf(o).forEach((choice, k) => {
          const choiceOid = perChoice[k]!.oid;
          itemRef(groupItems, choiceOid, isOn(o.required), ref);
          const aliases =
            k === 0
              ? ecrfAliases({ ...identity, CrfTitle: node.title, CrfChoiceOf: oid, CrfOrder: crfOrder })
              : ecrfAliases({ CrfChoiceOf: oid });
          itemDefs.push(
            `<ItemDef${attrs({ OID: choiceOid, Name: `${node.name}___${choice.value}`, DataType: 'boolean' })}><Question>${translated(`${title}：${choice.text}`)}</Question>${aliases}</ItemDef>`,
          );
        });
      } else {
        itemRef(groupItems, oid, isOn(o.required), ref);
        const dataType = dataTypeOf(node);
        const precision = toNumber(o.validate?.precision);
        const maxLength = dataType === 'text' ? toNumber(o.validate?.max) : null;
        const question = translated(node.title || node.name) + (english === undefined ? '' : translated(english, 'en'));
        const body: string[] = [`<Question>${question}</Question>`];
        const unit = unitsOf(o)[0];
        if (unit) {
          const unitOid = `MU.${oidPart(unit)}.${units.size + 1}`;
          if (![...units.values()].includes(unit)) units.set(unitOid, unit);
          const known = [...units].find(([, u]) => u === unit)![0];
          body.push(`<MeasurementUnitRef MeasurementUnitOID="${escAttr(known)}"/>`);
        }
        if (dataType === 'integer' || dataType === 'float') body.push(...rangeChecks(o));
        const choices = choicesOf(o);
        if (choices.length > 0 && isChoiceType(node.type)) {
          const clOid = unique(`CL.${formKey}.${oidPart(node.name)}`);
          body.push(`<CodeListRef CodeListOID="${escAttr(clOid)}"/>`);
          const clType = choices.every((c) => /^-?\d+$/.test(c.value)) ? 'integer' : 'text';
          codeLists.push(
            `<CodeList${attrs({ OID: clOid, Name: node.title || node.name, DataType: clType })}>${choices
              .map(
                (c) =>
                  `<CodeListItem CodedValue="${escAttr(c.value)}"><Decode>${translated(c.text)}</Decode></CodeListItem>`,
              )
              .join('')}</CodeList>`,
          );
        }
        itemDefs.push(
          `<ItemDef${attrs({
            OID: oid,
            Name: node.name || node.title,
            DataType: dataType,
            Length: maxLength !== null && maxLength > 0 ? Math.floor(maxLength) : undefined,
            SignificantDigits: dataType === 'float' && precision !== null ? precision : undefined,
          })}>${body.join('')}${ecrfAliases({ ...identity, CrfOrder: crfOrder })}</ItemDef>`,
        );
      }
      const additionOid = additionOids.get(node);
      if (additionOid !== undefined) {
        // The text typed beside an option (其他（请注明）): collected while one of its options is chosen.
        const when = condition(
          additionOid,
          `${node.name} 附加项不采集条件`,
          '未选中对应选项时不采集',
          additionCondition(node),
          oidOf,
        );
        itemRef(groupItems, additionOid, false, { CollectionExceptionConditionOID: when });
        itemDefs.push(
          `<ItemDef${attrs({ OID: additionOid, Name: additionKey(node.name), DataType: 'text' })}><Question>${translated(additionTitle(node))}</Question>${ecrfAliases({ CrfAdditionOf: node.name })}</ItemDef>`,
        );
      }
    };

    const groupDef = (node: CrfNode, order: number, parentOid: string | undefined) => {
      const oid = oids.get(node)!;
      const { option, ref } = standardParts(node, oid);
      groupRefs.push(
        `<ItemGroupRef${attrs({ ItemGroupOID: oid, Mandatory: 'No', CollectionExceptionConditionOID: ref.CollectionExceptionConditionOID })}/>`,
      );
      const items: string[] = [];
      const placeholder = groupDefs.length;
      groupDefs.push('');
      node.children.forEach((child, i) => {
        if (canHaveChildren(child.type)) groupDef(child, i, oid);
        else itemDef(child, i, items);
      });
      const aliases = ecrfAliases({
        CrfType: node.type,
        CrfName: node.name,
        CrfId: node.id,
        CrfOption: JSON.stringify(option),
        CrfParent: parentOid,
        CrfOrder: order,
      });
      groupDefs[placeholder] =
        `<ItemGroupDef${attrs({ OID: oid, Name: node.title || node.name, Repeating: isRowType(node.type) ? 'Yes' : 'No' })}>${items.join('')}${aliases}</ItemGroupDef>`;
    };

    const mainIndex = groupDefs.length;
    definition.children.forEach((child, i) => {
      if (canHaveChildren(child.type)) groupDef(child, i, undefined);
      else itemDef(child, i, mainItems);
    });
    if (mainItems.length > 0) {
      groupRefs.unshift(`<ItemGroupRef ItemGroupOID="${escAttr(mainOid)}" Mandatory="No"/>`);
      groupDefs.splice(
        mainIndex,
        0,
        `<ItemGroupDef${attrs({ OID: mainOid, Name: definition.title, Repeating: 'No' })}>${mainItems.join('')}${ecrfAliases({ CrfType: 'root' })}</ItemGroupDef>`,
      );
    }
    layout.formOid = unique(`F.${formKey}`);
    const formAliases = ecrfAliases({
      CrfId: definition.id,
      CrfOption: JSON.stringify(definition.option),
      CrfRules: definition.crfRules ? JSON.stringify(definition.crfRules) : undefined,
    });
    formDefs.push(
      `<FormDef${attrs({
        OID: layout.formOid,
        Name: definition.title,
        Repeating: options.repeatingForms?.has(formIndex) ? 'Yes' : 'No',
      })}>${groupRefs.join('')}${formAliases}</FormDef>`,
    );
  });

  const created = (options.now ?? new Date()).toISOString();
  const basic =
    units.size > 0
      ? `<BasicDefinitions>${[...units].map(([oid, u]) => `<MeasurementUnit OID="${escAttr(oid)}" Name="${escAttr(u)}"><Symbol>${translated(u)}</Symbol></MeasurementUnit>`).join('')}</BasicDefinitions>`
      : '';
  const studyOid = options.studyOid ?? 'S.ECRF';
  const events = options.events ?? [];
  const head = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<ODM xmlns="${ODM_NS}" ODMVersion="1.3.2" FileType="Snapshot" FileOID="ECRF.${esc(created)}" CreationDateTime="${escAttr(created)}">`,
    `<Study OID="${escAttr(studyOid)}">`,
    `<GlobalVariables><StudyName>${esc(studyName)}</StudyName><StudyDescription>${esc(options.studyDescription ?? studyName)}</StudyDescription><ProtocolName>${esc(studyName)}</ProtocolName></GlobalVariables>`,
    basic,
    `<MetaDataVersion OID="MDV.1" Name="${escAttr(studyName)}">`,
    // The schema's order: protocol, study events, forms, groups, items, code lists, then conditions and methods.
    ...(events.length > 0
      ? [
          `<Protocol>${events.map((e, i) => `<StudyEventRef StudyEventOID="${escAttr(e.oid)}" OrderNumber="${i + 1}" Mandatory="No"/>`).join('')}</Protocol>`,
          ...events.map(
            (e) =>
              `<StudyEventDef${attrs({ OID: e.oid, Name: e.name, Repeating: 'No', Type: 'Scheduled' })}>${e.formIndexes
                .map((i) => layouts[i])
                .filter((l): l is OdmFormLayout => l !== undefined)
                .map(
                  (l, order) => `<FormRef FormOID="${escAttr(l.formOid)}" OrderNumber="${order + 1}" Mandatory="No"/>`,
                )
                .join('')}</StudyEventDef>`,
          ),
        ]
      : []),
    ...formDefs,
    ...groupDefs,
    ...itemDefs,
    ...codeLists,
    ...odmMissingCodeLists(options.missingCodes ?? []),
    ...conditionDefs,
    ...methodDefs,
    '</MetaDataVersion>',
    '</Study>',
  ].join('\n');
  return { head, studyOid, metaDataVersionOid: 'MDV.1', layouts };
}

type OidOf = (name: string) => string | undefined;

/** A number's bounds as hard RangeChecks. */
function rangeChecks(o: ItemOption): string[] {
  const out: string[] = [];
  const min = toNumber(o.validate?.min);
  const max = toNumber(o.validate?.max);
  if (min !== null) {
    out.push(
      `<RangeCheck Comparator="GE" SoftHard="Hard"><CheckValue>${min}</CheckValue><ErrorMessage>${translated(`不能小于${min}`)}</ErrorMessage></RangeCheck>`,
    );
  }
  if (max !== null) {
    out.push(
      `<RangeCheck Comparator="LE" SoftHard="Hard"><CheckValue>${max}</CheckValue><ErrorMessage>${translated(`不能大于${max}`)}</ErrorMessage></RangeCheck>`,
    );
  }
  return out;
}
