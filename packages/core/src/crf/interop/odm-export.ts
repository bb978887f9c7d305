/** Our forms as ODM 1.3.2 metadata, with our own attributes for what ODM cannot say (see odm.ts). */
import {
  canHaveChildren,
  isChoiceType,
  isRowType,
  type CrfDefinition,
  type CrfNode,
  type ItemOption,
} from '../crf-definition.schema.js';
import { choicesOf, isOn, toNumber, unitsOf } from '../options.js';
import { itemTypeOf } from '../item-types/registry.js';
import { ECRF_CONTEXT, exportCondition, exportMethod } from './odm-expression.js';

export const ODM_NS = 'http://www.cdisc.org/ns/odm/v1.3';
export const ECRF_NS = 'urn:ecrf:crf-definition:1';
const LANG = 'zh-CN';

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
// Attribute values must keep their line breaks as character references, or parsers fold them to spaces.
const escAttr = (s: string) => esc(s).replace(/\r/g, '&#13;').replace(/\n/g, '&#10;').replace(/\t/g, '&#9;');
const oidPart = (s: string) => s.replace(/[^A-Za-z0-9_.-]/g, '_') || 'X';
const attrs = (pairs: Record<string, string | number | undefined>) =>
  Object.entries(pairs)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => ` ${k}="${escAttr(String(v))}"`)
    .join('');
const translated = (text: string, lang = LANG) => `<TranslatedText xml:lang="${lang}">${esc(text)}</TranslatedText>`;
const filled = (s: unknown): s is string => typeof s === 'string' && s.trim() !== '';

const dataTypeOf = (node: CrfNode): string => itemTypeOf(node.type).odmDataType(node);

export interface OdmExportOptions {
  studyOid?: string;
  studyName?: string;
  /** Creation time written into the file; the caller's clock. */
  now?: Date;
  /**
   * Study events (our stages) for a file that carries ClinicalData: a Protocol and one StudyEventDef each, with
   * FormRefs to the forms (by index into the definitions). The definition export leaves them out.
   */
  events?: ReadonlyArray<{ oid: string; name: string; formIndexes: readonly number[] }>;
  /** Indexes of forms that repeat (several records per patient): their FormDef says Repeating="Yes". */
  repeatingForms?: ReadonlySet<number>;
}

/** Where one item's values go in ODM ClinicalData: its ItemOID inside its ItemGroupOID. */
export interface OdmItemPlace {
  itemOid: string;
  groupOid: string;
  /** The group repeats (a list group's or table's rows): one ItemGroupData per row, keyed by the row number. */
  repeating: boolean;
}

/** The OIDs the metadata gave each form and item, so ClinicalData can be written against it. */
export interface OdmFormLayout {
  formOid: string;
  /** By item name: every value item, and the items of list-group and table rows. */
  items: Map<string, OdmItemPlace>;
  /** A row group (list group or table) by its name: the group's OID, its items by name. */
  rowGroups: Map<string, { groupOid: string; items: Map<string, string> }>;
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

  definitions.forEach((definition, formIndex) => {
    const formKey = oidPart(String(definition.id ?? `FORM${formIndex + 1}`));
    const groupRefs: string[] = [];
    const mainItems: string[] = [];
    // Every node's OID first, so that logic may name an item placed after it.
    const mainOid = definition.children.some((c) => !canHaveChildren(c.type)) ? unique(`IG.${formKey}.MAIN`) : '';
    const oids = new Map<CrfNode, string>();
    const oidOfName = new Map<string, string>();
    let unnamed = 0;
    const layout: OdmFormLayout = { formOid: '', items: new Map(), rowGroups: new Map() };
    layouts.push(layout);
    const assign = (node: CrfNode, groupOid: string, row: { items: Map<string, string> } | null) => {
      const prefix = canHaveChildren(node.type) ? 'IG' : 'I';
      const oid = unique(`${prefix}.${formKey}.${oidPart(node.name || `N${(unnamed += 1)}`)}`);
      oids.set(node, oid);
      if (node.name && !oidOfName.has(node.name)) oidOfName.set(node.name, oid);
      if (!canHaveChildren(node.type) && node.name) {
        if (row) row.items.set(node.name, oid);
        else if (!layout.items.has(node.name)) {
          layout.items.set(node.name, { itemOid: oid, groupOid, repeating: false });
        }
      }
      let childRow = row;
      if (isRowType(node.type) && node.name && !row) {
        childRow = { items: new Map() };
        layout.rowGroups.set(node.name, { groupOid: oid, items: childRow.items });
      }
      node.children.forEach((child) => assign(child, canHaveChildren(node.type) ? oid : groupOid, childRow));
    };
    definition.children.forEach((child) => assign(child, mainOid, null));
    const oidOf = (name: string) => oidOfName.get(name);

    /**
     * showIf and calc as a ConditionDef and a MethodDef, the English title as a TranslatedText: what
     * ODM says is left out of our own option attribute.
     */
    const standardParts = (node: CrfNode, oid: string) => {
      const option: ItemOption = { ...node.option };
      const ref: { MethodOID?: string; CollectionExceptionConditionOID?: string } = {};
      const label = node.name || oid;
      if (filled(option.showIf)) {
        const expression = exportCondition(option.showIf, oidOf);
        if (expression !== null) {
          ref.CollectionExceptionConditionOID = unique(`COND.${oid}`);
          conditionDefs.push(
            `<ConditionDef${attrs({ OID: ref.CollectionExceptionConditionOID, Name: `${label} 不采集条件` })}><Description>${translated(`不满足显示条件时不采集：${option.showIf}`)}</Description><FormalExpression Context="${ECRF_CONTEXT}">${esc(expression)}</FormalExpression></ConditionDef>`,
          );
          delete option.showIf;
        }
      }
      if (filled(option.calc) && !canHaveChildren(node.type)) {
        const expression = exportMethod(option.calc, oidOf);
        if (expression !== null) {
          ref.MethodOID = unique(`MT.${oid}`);
          methodDefs.push(
            `<MethodDef${attrs({ OID: ref.MethodOID, Name: `${label} 计算`, Type: 'Computation' })}><Description>${translated(`计算公式：${option.calc}`)}</Description><FormalExpression Context="${ECRF_CONTEXT}">${esc(expression)}</FormalExpression></MethodDef>`,
          );
          delete option.calc;
        }
      }
      const english = !canHaveChildren(node.type) && filled(option.titleEn) ? option.titleEn : undefined;
      if (english !== undefined) delete option.titleEn;
      return { option, ref, english };
    };

    const itemDef = (node: CrfNode, order: number, groupItems: string[]) => {
      const oid = oids.get(node)!;
      const o = node.option;
      const { option, ref, english } = standardParts(node, oid);
      groupItems.push(
        `<ItemRef${attrs({ ItemOID: oid, Mandatory: isOn(o.required) ? 'Yes' : 'No', OrderNumber: order + 1, ...ref })}/>`,
      );
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
      if (dataType === 'integer' || dataType === 'float') {
        const min = toNumber(o.validate?.min);
        const max = toNumber(o.validate?.max);
        if (min !== null) {
          body.push(
            `<RangeCheck Comparator="GE" SoftHard="Hard"><CheckValue>${min}</CheckValue><ErrorMessage>${translated(`不能小于${min}`)}</ErrorMessage></RangeCheck>`,
          );
        }
        if (max !== null) {
          body.push(
            `<RangeCheck Comparator="LE" SoftHard="Hard"><CheckValue>${max}</CheckValue><ErrorMessage>${translated(`不能大于${max}`)}</ErrorMessage></RangeCheck>`,
          );
        }
      }
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
          'ecrf:CrfType': node.type,
          'ecrf:CrfName': node.name,
          'ecrf:CrfId': node.id,
          'ecrf:CrfOption': JSON.stringify(option),
        })}>${body.join('')}</ItemDef>`,
      );
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
      groupDefs[placeholder] = `<ItemGroupDef${attrs({
        OID: oid,
        Name: node.title || node.name,
        Repeating: isRowType(node.type) ? 'Yes' : 'No',
        'ecrf:CrfType': node.type,
        'ecrf:CrfName': node.name,
        'ecrf:CrfId': node.id,
        'ecrf:CrfOption': JSON.stringify(option),
        'ecrf:CrfParent': parentOid,
        'ecrf:CrfOrder': order,
      })}>${items.join('')}</ItemGroupDef>`;
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
        `<ItemGroupDef${attrs({ OID: mainOid, Name: definition.title, Repeating: 'No', 'ecrf:CrfType': 'root' })}>${mainItems.join('')}</ItemGroupDef>`,
      );
    }
    layout.formOid = unique(`F.${formKey}`);
    formDefs.push(
      `<FormDef${attrs({
        OID: layout.formOid,
        Name: definition.title,
        Repeating: options.repeatingForms?.has(formIndex) ? 'Yes' : 'No',
        'ecrf:CrfId': definition.id,
        'ecrf:CrfOption': JSON.stringify(definition.option),
        'ecrf:CrfRules': definition.crfRules ? JSON.stringify(definition.crfRules) : undefined,
      })}>${groupRefs.join('')}</FormDef>`,
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
    `<ODM xmlns="${ODM_NS}" xmlns:ecrf="${ECRF_NS}" ODMVersion="1.3.2" FileType="Snapshot" FileOID="ECRF.${esc(created)}" CreationDateTime="${escAttr(created)}">`,
    `<Study OID="${escAttr(studyOid)}">`,
    `<GlobalVariables><StudyName>${esc(studyName)}</StudyName><StudyDescription>${esc(studyName)}</StudyDescription><ProtocolName>${esc(studyName)}</ProtocolName></GlobalVariables>`,
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
    ...conditionDefs,
    ...methodDefs,
    '</MetaDataVersion>',
    '</Study>',
  ].join('\n');
  return { head, studyOid, metaDataVersionOid: 'MDV.1', layouts };
}
