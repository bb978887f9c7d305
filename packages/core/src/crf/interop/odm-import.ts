/**
 * ODM 1.3.2 metadata read back into forms: ours exactly from our attributes, other systems' from the
 * standard elements (see odm.ts).
 */
import { CRF_MSG } from '../crf-messages.js';
import { XMLParser } from 'fast-xml-parser';
import {
  ITEM_TYPES,
  type CrfDefinition,
  type CrfNode,
  type ItemOption,
  type ItemType,
} from '../crf-definition.schema.js';
import { toNumber } from '../options.js';
import { finishImport, type ImportIssue, type ImportResult } from './import-result.js';
import { applyOdmLogic, type PendingLogic } from './odm-logic.js';
import { importRedcapOdm, isRedcapOdm } from './odm-redcap.js';
import { odmStructureWarnings } from './odm-structure.js';
import { attr, content, ecrfValue, list, pickText, type XmlNode } from './odm-xml.js';

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
  'Alias',
]);

const NAME = /^[\p{L}_][\p{L}\p{N}_]*$/u;

/** Another system's option of a multiple choice: a boolean item named `<item>___<code>`. */
const foreignChoice = (def: XmlNode) =>
  attr(def, 'DataType') === 'boolean' && /^.+?___.+$/.test(attr(def, 'Name') ?? '');

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
  issues.push(...odmStructureWarnings(study, mdv));
  if (isRedcapOdm(xml, odm)) return importRedcapOdm(mdv, issues);
  const groups = new Map(list(mdv, 'ItemGroupDef').map((g) => [attr(g, 'OID') ?? '', g]));
  const items = new Map(list(mdv, 'ItemDef').map((i) => [attr(i, 'OID') ?? '', i]));
  const codeLists = new Map(list(mdv, 'CodeList').map((c) => [attr(c, 'OID') ?? '', c]));
  const conditions = new Map(list(mdv, 'ConditionDef').map((c) => [attr(c, 'OID') ?? '', c]));
  const methods = new Map(list(mdv, 'MethodDef').map((m) => [attr(m, 'OID') ?? '', m]));
  // A multiple choice written as one boolean item per option (ours, REDCap-style `<item>___<code>`): our logic
  // names it by the stem its options' OIDs extend.
  const stemOf = (oid: string, def: XmlNode) =>
    ecrfValue(def, 'CrfChoiceOf') ??
    (foreignChoice(def) && oid.includes('___') ? oid.slice(0, oid.lastIndexOf('___')) : undefined);
  const stems = new Map<string, string>();
  for (const [oid, def] of items) {
    const stem = stemOf(oid, def);
    if (stem !== undefined) stems.set(oid, stem);
  }
  // Longest first, so that an OID that extends another reads whole.
  const allOids = [...new Set([...items.keys(), ...groups.keys(), ...stems.values()])]
    .filter((o) => o !== '')
    .sort((a, b) => b.length - a.length);
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

    // The multiple choice being rebuilt from the per-option items of another system's file, in this group.
    let assembling: CrfNode | null = null;

    /** The node an ItemRef brings, or null when it brings none (a missing ItemDef, a part of another item). */
    const itemNode = (ref: XmlNode): CrfNode | null => {
      const oid = attr(ref, 'ItemOID') ?? '';
      const def = items.get(oid);
      if (!def) {
        fail(oid, `ItemRef 引用的 ItemDef 不存在：${oid}`);
        return null;
      }
      // The addition text beside a choice is its owner's (addition in its options).
      if (ecrfValue(def, 'CrfAdditionOf') !== undefined) return null;
      const crfType = ecrfValue(def, 'CrfType');
      const stem = stems.get(oid);
      const own = crfType !== undefined && (ITEM_TYPES as readonly string[]).includes(crfType);
      if (stem !== undefined && !own) {
        const owner = ecrfValue(def, 'CrfChoiceOf') === undefined ? foreignOption(def, ref, oid, stem) : null;
        const name = owner?.name ?? nameOfOid.get(stem);
        if (name !== undefined) nameOfOid.set(oid, name);
        return owner?.node ?? null;
      }
      assembling = null;
      const question = pick(def.Question, true);
      const title = question.text || attr(def, 'Name') || oid;
      let node: CrfNode;
      if (own) {
        const option = parseJsonAttr<ItemOption>(ecrfValue(def, 'CrfOption'), (m) => fail(oid, m)) ?? {};
        node = {
          name: ecrfValue(def, 'CrfName') ?? attr(def, 'Name') ?? '',
          // One option's question is the item's title with the option's: the title is kept apart.
          title: stem === undefined ? title : (ecrfValue(def, 'CrfTitle') ?? title),
          type: crfType as ItemType,
          option,
          children: [],
        };
        const id = ecrfValue(def, 'CrfId');
        if (id !== undefined) node.id = id;
      } else node = standardItem(def, ref, title, oid);
      if (question.english !== undefined && stem === undefined) node.option.titleEn = question.english;
      if (node.name) {
        nameOfOid.set(oid, node.name);
        if (stem !== undefined) nameOfOid.set(stem, node.name);
        const defName = attr(def, 'Name');
        if (defName !== undefined && !nameOfDefName.has(defName)) nameOfDefName.set(defName, node.name);
      }
      noteLogic(node, oid, ref, false);
      return node;
    };

    /**
     * One option of another system's multiple choice (a boolean `<item>___<code>`): the first starts a checkbox,
     * the next ones of the same item in the same group add their options to it.
     */
    const foreignOption = (def: XmlNode, ref: XmlNode, oid: string, stem: string) => {
      const [, item = '', code = ''] = /^(.+?)___(.+)$/.exec(attr(def, 'Name') ?? '') ?? [];
      const question = pick(def.Question).text;
      const cut = question.lastIndexOf('：');
      const label = (cut >= 0 ? question.slice(cut + 1) : code).replace(/,/g, '，');
      const current: CrfNode | null = assembling;
      if (current !== null && nameOfOid.get(stem) === current.name) {
        current.option.optionsValue += `,${code.replace(/,/g, '，')}`;
        current.option.optionsText += `,${label}`;
        return { name: current.name, node: null };
      }
      let name = item;
      if (!NAME.test(name) || usedNames.has(name)) {
        name = stem
          .replace(/^I\./, '')
          .replace(/[^\p{L}\p{N}_]/gu, '_')
          .replace(/^(\d)/, '_$1');
        warn(oid, `多选题名称“${item}”不能用作题目名称，已改为 ${name}`);
      }
      usedNames.add(name);
      const option: ItemOption = { optionsValue: code.replace(/,/g, '，'), optionsText: label };
      if (attr(ref, 'Mandatory') === 'Yes') option.required = 1;
      const node: CrfNode = {
        name,
        title: cut >= 0 ? question.slice(0, cut) : question || name,
        type: 'checkbox',
        option,
        children: [],
      };
      assembling = node;
      nameOfOid.set(stem, name);
      noteLogic(node, oid, ref, false);
      return { name, node };
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
        case 'incompleteDate':
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
      const crfType = ecrfValue(group, 'CrfType');
      const refs = list(group, 'ItemRef');
      assembling = null;
      // Our place among the siblings when it differs from the ItemRef's order (odm-export.ts).
      const positionOf = (ref: XmlNode, i: number) =>
        toNumber(ecrfValue(items.get(attr(ref, 'ItemOID') ?? ''), 'CrfOrder') ?? '') ??
        (toNumber(attr(ref, 'OrderNumber')) ?? i + 1) - 1;
      if (crfType === 'root') {
        refs.forEach((ref, i) => {
          const node = itemNode(ref);
          if (node) place('', positionOf(ref, i), node);
        });
        return;
      }
      let node: CrfNode;
      let parent = '';
      let order = groupIndex * 1000;
      if (crfType && (ITEM_TYPES as readonly string[]).includes(crfType)) {
        node = {
          name: ecrfValue(group, 'CrfName') ?? '',
          title: attr(group, 'Name') ?? '',
          type: crfType as ItemType,
          option: parseJsonAttr<ItemOption>(ecrfValue(group, 'CrfOption'), (m) => fail(goid, m)) ?? {},
          children: [],
        };
        const id = ecrfValue(group, 'CrfId');
        if (id !== undefined) node.id = id;
        parent = ecrfValue(group, 'CrfParent') ?? '';
        order = toNumber(ecrfValue(group, 'CrfOrder') ?? '') ?? order;
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
        if (child) place(goid, positionOf(ref, i), child);
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
      option: parseJsonAttr<CrfDefinition['option']>(ecrfValue(formDef, 'CrfOption'), (m) => fail(undefined, m)) ?? {},
      children: (childrenOf.get('') ?? []).sort((a, b) => a.order - b.order).map((p) => p.node),
    };
    const id = ecrfValue(formDef, 'CrfId');
    definition.id = id ?? form;
    const rules = parseJsonAttr<CrfDefinition['crfRules']>(ecrfValue(formDef, 'CrfRules'), (m) => fail(undefined, m));
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
