import { CRF_MSG } from '../crf-messages.js';
import { XMLParser } from 'fast-xml-parser';
import {
  canHaveChildren,
  isChoiceType,
  isRowType,
  ITEM_TYPES,
  type CrfDefinition,
  type CrfNode,
  type ItemOption,
  type ItemType,
} from '../crf-definition.schema.js';
import { choicesOf, isOn, toNumber, unitsOf } from '../options.js';
import { itemTypeOf } from '../item-types/registry.js';
import { finishImport, type ImportIssue, type ImportResult } from './import-result.js';
import { ECRF_CONTEXT, exportCondition, exportMethod } from './odm-expression.js';
import { applyOdmLogic, type PendingLogic } from './odm-logic.js';
import { importRedcapOdm, isRedcapOdm } from './odm-redcap.js';
import { attr, content, list, pickText, type XmlNode } from './odm-xml.js';

/**
 * CDISC ODM 1.3.2 metadata: FormDef, ItemGroupDef, ItemDef, CodeList, RangeCheck, and the logic as
 * ODM says it: a showIf is the negation of a collection exception (a ConditionDef named by
 * CollectionExceptionConditionOID), a calc is a MethodDef of Type Computation (MethodOID), both as
 * FormalExpressions in the `ecrf` context (our language, items written as ItemOIDs). ODM item groups
 * are flat and know no display items, checks or most of our options, so the export also writes our
 * own attributes in a separate namespace for what ODM cannot say (CrfType, CrfName, CrfId, CrfOption,
 * CrfParent, CrfOrder, CrfRules); other systems ignore them, and our import restores the exact tree
 * from them. A file from another system is read from the standard elements (REDCap's own export from
 * its attributes, odm-redcap.ts), and whatever they cannot say is reported.
 */
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

const ARRAYS = new Set([
  'Study',
  'MetaDataVersion',
  'FormDef',
  'ItemGroupRef',
  'ItemGroupDef',
  'ItemRef',
  'ItemDef',
  'CodeList',
  'CodeListItem',
  'RangeCheck',
  'CheckValue',
  'TranslatedText',
  'MeasurementUnit',
  'MeasurementUnitRef',
  'ConditionDef',
  'MethodDef',
  'FormalExpression',
]);

const NAME = /^[\p{L}_][\p{L}\p{N}_]*$/u;

function parseJsonAttr<T>(value: string | undefined, fail: (message: string) => void): T | undefined {
  if (value === undefined) return undefined;
  try {
    return JSON.parse(value) as T;
  } catch {
    fail(`扩展属性不是有效的 JSON：${value.slice(0, 60)}`);
    return undefined;
  }
}

/** Forms from ODM 1.3.2 metadata: our own exports exactly, other systems' from the standard elements. */
export function importOdm(xml: string): ImportResult {
  const issues: ImportIssue[] = [];
  // ODM needs no DTD; refusing one keeps entity expansion attacks out.
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) {
    return {
      ok: false,
      definitions: [],
      issues: [{ severity: 'error', message: 'ODM 文件不能包含 DOCTYPE 或实体声明' }],
    };
  }
  let root: XmlNode;
  try {
    const parser = new XMLParser({
      ignoreAttributes: false,
      attributeNamePrefix: '@',
      removeNSPrefix: true,
      parseAttributeValue: false,
      parseTagValue: false,
      trimValues: true,
      htmlEntities: true,
      isArray: (name) => ARRAYS.has(name),
    });
    root = parser.parse(xml.replace(/^\uFEFF/, ''), true) as XmlNode;
  } catch (error) {
    return {
      ok: false,
      definitions: [],
      issues: [{ severity: 'error', message: `不是有效的 XML：${(error as Error).message}` }],
    };
  }
  const odm = root.ODM as XmlNode | undefined;
  if (/^2/.test(attr(odm, 'ODMVersion') ?? '')) {
    return {
      ok: false,
      definitions: [],
      issues: [{ severity: 'error', message: 'ODM 2.0 暂不支持，请导出为 ODM 1.3' }],
    };
  }
  const study = list(odm, 'Study')[0];
  const mdv = list(study, 'MetaDataVersion')[0];
  if (!odm || !mdv) {
    return {
      ok: false,
      definitions: [],
      issues: [{ severity: 'error', message: '不是 ODM 元数据文件：缺少 ODM/Study/MetaDataVersion' }],
    };
  }
  if (list(odm, 'Study').length > 1 || list(study, 'MetaDataVersion').length > 1) {
    issues.push({ severity: 'warning', message: '文件含多个 Study 或 MetaDataVersion，只导入第一个' });
  }
  if (isRedcapOdm(xml, odm)) return importRedcapOdm(mdv, issues);
  const groups = new Map(list(mdv, 'ItemGroupDef').map((g) => [attr(g, 'OID') ?? '', g]));
  const items = new Map(list(mdv, 'ItemDef').map((i) => [attr(i, 'OID') ?? '', i]));
  const codeLists = new Map(list(mdv, 'CodeList').map((c) => [attr(c, 'OID') ?? '', c]));
  const conditions = new Map(list(mdv, 'ConditionDef').map((c) => [attr(c, 'OID') ?? '', c]));
  const methods = new Map(list(mdv, 'MethodDef').map((m) => [attr(m, 'OID') ?? '', m]));
  // Longest first, so that an OID that extends another reads whole.
  const allOids = [...items.keys(), ...groups.keys()].filter((o) => o !== '').sort((a, b) => b.length - a.length);
  const unitSymbols = new Map(
    list((study as XmlNode).BasicDefinitions as XmlNode | undefined, 'MeasurementUnit').map((u) => [
      attr(u, 'OID') ?? '',
      pickText(u.Symbol).text || attr(u, 'Name') || '',
    ]),
  );

  const candidates = list(mdv, 'FormDef').map((formDef, formIndex) => {
    const form = attr(formDef, 'OID') ?? `FORM${formIndex + 1}`;
    const warn = (field: string | undefined, message: string) =>
      issues.push({ severity: 'warning', form, field, message });
    const fail = (field: string | undefined, message: string) =>
      issues.push({ severity: 'error', form, field, message });
    const usedNames = new Set<string>();
    const droppedLanguages = new Set<string>();
    const pick = (node: unknown, alternate = false) => {
      const picked = pickText(node, alternate);
      picked.dropped.forEach((lang) => droppedLanguages.add(lang));
      return picked;
    };
    // What the form's logic may name: ItemOIDs and ItemGroupOIDs, ItemDef Names, and the imported names.
    const nameOfOid = new Map<string, string>();
    const nameOfDefName = new Map<string, string>();
    const logic: PendingLogic[] = [];
    const noteLogic = (node: CrfNode, field: string, ref: XmlNode, group: boolean) => {
      const condition = attr(ref, 'CollectionExceptionConditionOID');
      const method = group ? undefined : attr(ref, 'MethodOID');
      if (condition !== undefined || method !== undefined) logic.push({ node, field, group, condition, method });
    };

    const itemNode = (ref: XmlNode): CrfNode | null => {
      const oid = attr(ref, 'ItemOID') ?? '';
      const def = items.get(oid);
      if (!def) {
        fail(oid, `ItemRef 引用的 ItemDef 不存在：${oid}`);
        return null;
      }
      const question = pick(def.Question, true);
      const title = question.text || attr(def, 'Name') || oid;
      const crfType = attr(def, 'CrfType');
      let node: CrfNode;
      if (crfType && (ITEM_TYPES as readonly string[]).includes(crfType)) {
        const option = parseJsonAttr<ItemOption>(attr(def, 'CrfOption'), (m) => fail(oid, m)) ?? {};
        node = {
          name: attr(def, 'CrfName') ?? attr(def, 'Name') ?? '',
          title,
          type: crfType as ItemType,
          option,
          children: [],
        };
        const id = attr(def, 'CrfId');
        if (id !== undefined) node.id = id;
      } else node = standardItem(def, ref, title, oid);
      if (question.english !== undefined) node.option.titleEn = question.english;
      if (node.name) {
        nameOfOid.set(oid, node.name);
        const defName = attr(def, 'Name');
        if (defName !== undefined && !nameOfDefName.has(defName)) nameOfDefName.set(defName, node.name);
      }
      noteLogic(node, oid, ref, false);
      return node;
    };

    const standardItem = (def: XmlNode, ref: XmlNode, title: string, oid: string): CrfNode => {
      let name = attr(def, 'Name') ?? '';
      if (!NAME.test(name) || usedNames.has(name)) {
        const derived = oid
          .replace(/^I\./, '')
          .replace(/[^\p{L}\p{N}_]/gu, '_')
          .replace(/^(\d)/, '_$1');
        warn(oid, `ItemDef 名称“${name}”不能用作题目名称，已改为 ${derived}`);
        name = derived;
      }
      usedNames.add(name);
      const option: ItemOption = {};
      const dataType = attr(def, 'DataType') ?? 'text';
      let type: ItemType;
      switch (dataType) {
        case 'integer':
          type = 'int';
          break;
        case 'float':
        case 'double':
          type = 'real';
          break;
        case 'date':
          type = 'date';
          break;
        case 'datetime':
          type = 'datetime';
          break;
        case 'partialDate':
        case 'partialDatetime':
        case 'incompleteDatetime':
          type = 'partialDate';
          break;
        case 'time':
        case 'partialTime':
          type = 'time';
          break;
        case 'boolean':
          type = 'radio';
          Object.assign(option, { optionsValue: '1,0', optionsText: '是,否' });
          break;
        default:
          type = 'input';
      }
      const length = toNumber(attr(def, 'Length'));
      if (type === 'input' && length !== null) {
        option.validate = { max: length };
        if (length > 200) type = 'textarea';
      }
      const digits = toNumber(attr(def, 'SignificantDigits'));
      if (type === 'real' && digits !== null) option.validate = { ...option.validate, precision: digits };
      const clRef = def.CodeListRef as XmlNode | undefined;
      if (clRef) {
        const cl = codeLists.get(attr(clRef, 'CodeListOID') ?? '');
        if (!cl) fail(oid, `CodeListRef 引用的 CodeList 不存在：${attr(clRef, 'CodeListOID')}`);
        else {
          const entries = list(cl, 'CodeListItem').map((c) => ({
            value: attr(c, 'CodedValue') ?? '',
            text: pick(c.Decode).text || attr(c, 'CodedValue') || '',
          }));
          if (entries.some((e) => e.value.includes(',') || e.text.includes(','))) {
            warn(oid, '选项中的英文逗号已改为中文逗号');
          }
          const clean = (s: string) => s.replace(/,/g, '，');
          option.optionsValue = entries.map((e) => clean(e.value)).join(',');
          option.optionsText = entries.map((e) => clean(e.text)).join(',');
          type = 'radio';
        }
      }
      // Hard range checks block (bounds of the item); soft ones warn and may be kept by the user, as in
      // the source system: they become warning checks, which the platform raises as system queries.
      const softChecks: Array<{ expression: string; message: string; severity: 'warning' }> = [];
      const SOFT_OPERATORS: Record<string, [string, (v: string) => string]> = {
        GE: ['>=', (v) => CRF_MSG.belowMin(Number(v))],
        GT: ['>', (v) => `应大于${v}`],
        LE: ['<=', (v) => CRF_MSG.aboveMax(Number(v))],
        LT: ['<', (v) => `应小于${v}`],
      };
      for (const check of list(def, 'RangeCheck')) {
        const comparator = attr(check, 'Comparator') ?? '';
        // Exports from European locales write decimals with a comma (0,5).
        const values = list(check, 'CheckValue').map((v) =>
          content(v)
            .trim()
            .replace(/^(-?\d+),(\d+)$/, '$1.$2'),
        );
        const soft = attr(check, 'SoftHard') === 'Soft';
        const operator = SOFT_OPERATORS[comparator];
        if (soft && operator && values[0] !== undefined && Number.isFinite(Number(values[0]))) {
          softChecks.push({
            expression: `${name} ${operator[0]} ${Number(values[0])}`,
            message: operator[1](values[0]),
            severity: 'warning',
          });
        } else if ((comparator === 'GE' || comparator === 'GT') && values[0] !== undefined) {
          option.validate = { ...option.validate, min: values[0] };
          if (comparator === 'GT') warn(oid, `RangeCheck GT ${values[0]} 已按“不小于”导入`);
        } else if ((comparator === 'LE' || comparator === 'LT') && values[0] !== undefined) {
          option.validate = { ...option.validate, max: values[0] };
          if (comparator === 'LT') warn(oid, `RangeCheck LT ${values[0]} 已按“不大于”导入`);
        } else warn(oid, `RangeCheck ${comparator} 无法转换`);
      }
      if (softChecks.length > 0) option.checks = [...(option.checks ?? []), ...softChecks];
      const unitRef = list(def, 'MeasurementUnitRef')[0];
      if (unitRef) {
        const symbol = unitSymbols.get(attr(unitRef, 'MeasurementUnitOID') ?? '');
        if (symbol) option.units = symbol;
      }
      if (attr(ref, 'Mandatory') === 'Yes') option.required = 1;
      return { name, title, type, option, children: [] };
    };

    // Rebuild the tree: groups under their CrfParent (or at the top), children ordered by position.
    type Placed = { order: number; node: CrfNode };
    const childrenOf = new Map<string, Placed[]>();
    const place = (parent: string, order: number, node: CrfNode) => {
      if (!childrenOf.has(parent)) childrenOf.set(parent, []);
      childrenOf.get(parent)!.push({ order, node });
    };
    const groupNodes = new Map<string, CrfNode>();
    list(formDef, 'ItemGroupRef').forEach((groupRef, groupIndex) => {
      const goid = attr(groupRef, 'ItemGroupOID') ?? '';
      const group = groups.get(goid);
      if (!group) {
        fail(goid, `ItemGroupRef 引用的 ItemGroupDef 不存在：${goid}`);
        return;
      }
      const crfType = attr(group, 'CrfType');
      const refs = list(group, 'ItemRef');
      const positionOf = (ref: XmlNode, i: number) => toNumber(attr(ref, 'OrderNumber')) ?? i + 1;
      if (crfType === 'root') {
        refs.forEach((ref, i) => {
          const node = itemNode(ref);
          if (node) place('', positionOf(ref, i) - 1, node);
        });
        return;
      }
      let node: CrfNode;
      let parent = '';
      let order = groupIndex * 1000;
      if (crfType && (ITEM_TYPES as readonly string[]).includes(crfType)) {
        node = {
          name: attr(group, 'CrfName') ?? '',
          title: attr(group, 'Name') ?? '',
          type: crfType as ItemType,
          option: parseJsonAttr<ItemOption>(attr(group, 'CrfOption'), (m) => fail(goid, m)) ?? {},
          children: [],
        };
        const id = attr(group, 'CrfId');
        if (id !== undefined) node.id = id;
        parent = attr(group, 'CrfParent') ?? '';
        order = toNumber(attr(group, 'CrfOrder')) ?? order;
      } else {
        const derived = goid
          .replace(/^IG\./, '')
          .replace(/[^\p{L}\p{N}_]/gu, '_')
          .replace(/^(\d)/, '_$1');
        node = {
          name: derived,
          title: attr(group, 'Name') ?? goid,
          type: attr(group, 'Repeating') === 'Yes' ? 'listGroup' : 'section',
          option: {},
          children: [],
        };
      }
      groupNodes.set(goid, node);
      if (node.name) nameOfOid.set(goid, node.name);
      noteLogic(node, goid, groupRef, true);
      place(parent, order, node);
      refs.forEach((ref, i) => {
        const child = itemNode(ref);
        if (child) place(goid, positionOf(ref, i) - 1, child);
      });
    });
    for (const [goid, node] of groupNodes) {
      node.children = (childrenOf.get(goid) ?? []).sort((a, b) => a.order - b.order).map((p) => p.node);
    }
    for (const parent of childrenOf.keys()) {
      if (parent !== '' && !groupNodes.has(parent)) fail(parent, `ItemGroupDef 的上级分组不存在：${parent}`);
    }
    const definition: CrfDefinition = {
      title: attr(formDef, 'Name') ?? form,
      option: parseJsonAttr<CrfDefinition['option']>(attr(formDef, 'CrfOption'), (m) => fail(undefined, m)) ?? {},
      children: (childrenOf.get('') ?? []).sort((a, b) => a.order - b.order).map((p) => p.node),
    };
    const id = attr(formDef, 'CrfId');
    definition.id = id ?? form;
    const rules = parseJsonAttr<CrfDefinition['crfRules']>(attr(formDef, 'CrfRules'), (m) => fail(undefined, m));
    if (rules) definition.crfRules = rules;

    applyOdmLogic(definition, logic, { conditions, methods, oids: allOids, nameOfOid, nameOfDefName }, warn);
    if (droppedLanguages.size > 0) {
      warn(
        undefined,
        `以下语言的文字未导入：${[...droppedLanguages].join('、')}（题目标题优先用中文，其次英文；中英文都有时英文存为 titleEn）`,
      );
    }
    return { form, definition };
  });
  if (candidates.length === 0) issues.push({ severity: 'error', message: 'ODM 文件中没有 FormDef' });
  const hadErrors = issues.some((i) => i.severity === 'error');
  const result = finishImport(candidates, issues);
  return hadErrors ? { ...result, ok: false } : result;
}
