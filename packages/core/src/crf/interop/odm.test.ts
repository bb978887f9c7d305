import { XMLParser } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import type { CrfDefinition } from '../crf-definition.schema.js';
import { evaluateForm } from '../evaluate-form.js';
import { baselineCrf, item } from '../test/fixtures.js';
import { formatImportIssue } from './import-result.js';
import { exportOdm, importOdm } from './odm.js';

const context = { now: new Date(Date.UTC(2024, 5, 15, 2)), gender: 'female' as const };

const followUp: CrfDefinition = {
  id: 'fu',
  title: '随访 & 复查 <30天>',
  option: {},
  children: [
    item('date', 'fu_date', '随访日期', { required: 1 }),
    item('table', 'labs', '实验室检查', {}, [
      item('input', 'lab', '项目'),
      item('real', 'val', '结果', { units: 'U/L' }),
    ]),
    item('title', 't1', '说明："引号" 与 换行\n第二行'),
  ],
};

describe('CDISC ODM 1.3.2', () => {
  it('round-trips our forms exactly', () => {
    const xml = exportOdm([baselineCrf(), followUp], { now: new Date(Date.UTC(2024, 0, 1)) });
    const result = importOdm(xml);
    expect(result.issues).toEqual([]);
    expect(result.definitions).toEqual([baselineCrf(), followUp]);
  });

  it('writes standard metadata other systems can read: FormDef, ItemGroupDef, ItemDef, CodeList, RangeCheck', () => {
    const xml = exportOdm([baselineCrf()], { studyName: '示例研究', now: new Date(Date.UTC(2024, 0, 1)) });
    const doc = new XMLParser({
      ignoreAttributes: false,
      attributeNamePrefix: '@',
      isArray: (n) =>
        ['FormDef', 'ItemGroupDef', 'ItemDef', 'CodeList', 'RangeCheck', 'ItemGroupRef', 'ItemRef'].includes(n),
    }).parse(xml);
    expect(doc.ODM['@ODMVersion']).toBe('1.3.2');
    expect(doc.ODM['@xmlns']).toBe('http://www.cdisc.org/ns/odm/v1.3');
    const mdv = doc.ODM.Study.MetaDataVersion;
    expect(mdv.FormDef).toHaveLength(1);
    expect(mdv.FormDef[0]['@Name']).toBe('基线访视');
    const groups = Object.fromEntries(
      mdv.ItemGroupDef.map((g: Record<string, string>) => [g['@OID'], g['@Repeating']]),
    );
    expect(groups).toMatchObject({ 'IG.baseline.demo': 'No', 'IG.baseline.meds': 'Yes' });
    const defs = Object.fromEntries(mdv.ItemDef.map((d: Record<string, string>) => [d['@Name'], d]));
    expect(defs.weight['@DataType']).toBe('float');
    expect(defs.weight['@SignificantDigits']).toBe('1');
    expect(defs.weight.RangeCheck.map((r: Record<string, unknown>) => [r['@Comparator'], r.CheckValue])).toEqual([
      ['GE', 20],
      ['LE', 300],
    ]);
    expect(defs.sbp['@DataType']).toBe('integer');
    expect(defs.birth['@DataType']).toBe('date');
    expect(defs.sex.CodeListRef['@CodeListOID']).toBe('CL.baseline.sex');
    const sexList = mdv.CodeList.find((c: Record<string, string>) => c['@OID'] === 'CL.baseline.sex');
    expect(sexList.CodeListItem.map((c: Record<string, unknown>) => c['@CodedValue'])).toEqual(['1', '2']);
  });

  it('imports another system’s metadata from the standard elements and reports what it cannot carry', () => {
    const foreign = `<?xml version="1.0" encoding="UTF-8"?>
<odm:ODM xmlns:odm="http://www.cdisc.org/ns/odm/v1.3" ODMVersion="1.3.2" FileType="Snapshot" FileOID="OC.1" CreationDateTime="2024-01-01T00:00:00">
  <odm:Study OID="S_DEMO">
    <odm:BasicDefinitions>
      <odm:MeasurementUnit OID="MU_KG" Name="kg"><odm:Symbol><odm:TranslatedText>kg</odm:TranslatedText></odm:Symbol></odm:MeasurementUnit>
    </odm:BasicDefinitions>
    <odm:MetaDataVersion OID="v1" Name="v1">
      <odm:FormDef OID="F_VITALS" Name="Vital signs" Repeating="No">
        <odm:ItemGroupRef ItemGroupOID="IG_VS" Mandatory="Yes"/>
        <odm:ItemGroupRef ItemGroupOID="IG_CM" Mandatory="No"/>
      </odm:FormDef>
      <odm:ItemGroupDef OID="IG_VS" Name="Vital signs" Repeating="No">
        <odm:ItemRef ItemOID="I_SEX" Mandatory="Yes" OrderNumber="1"/>
        <odm:ItemRef ItemOID="I_WEIGHT" Mandatory="Yes" OrderNumber="2"/>
        <odm:ItemRef ItemOID="I_PREG" Mandatory="No" OrderNumber="3" CollectionExceptionConditionOID="C_MALE"/>
        <odm:ItemRef ItemOID="I_VISIT" Mandatory="No" OrderNumber="4"/>
        <odm:ItemRef ItemOID="I_SMOKER" Mandatory="No" OrderNumber="5"/>
      </odm:ItemGroupDef>
      <odm:ItemGroupDef OID="IG_CM" Name="Concomitant medication" Repeating="Yes">
        <odm:ItemRef ItemOID="I_CMTRT" Mandatory="Yes"/>
        <odm:ItemRef ItemOID="I_CMDOSE" Mandatory="No"/>
      </odm:ItemGroupDef>
      <odm:ItemDef OID="I_SEX" Name="SEX" DataType="text" Length="1">
        <odm:Question><odm:TranslatedText xml:lang="en">Sex</odm:TranslatedText><odm:TranslatedText xml:lang="zh-CN">性别</odm:TranslatedText></odm:Question>
        <odm:CodeListRef CodeListOID="CL_SEX"/>
      </odm:ItemDef>
      <odm:ItemDef OID="I_WEIGHT" Name="WEIGHT" DataType="float" SignificantDigits="1">
        <odm:Question><odm:TranslatedText>Weight</odm:TranslatedText></odm:Question>
        <odm:MeasurementUnitRef MeasurementUnitOID="MU_KG"/>
        <odm:RangeCheck Comparator="GT" SoftHard="Soft"><odm:CheckValue>0</odm:CheckValue></odm:RangeCheck>
        <odm:RangeCheck Comparator="LE" SoftHard="Hard"><odm:CheckValue>300</odm:CheckValue></odm:RangeCheck>
      </odm:ItemDef>
      <odm:ItemDef OID="I_PREG" Name="PREG" DataType="boolean"><odm:Question><odm:TranslatedText>Pregnant?</odm:TranslatedText></odm:Question></odm:ItemDef>
      <odm:ItemDef OID="I_VISIT" Name="VISIT-DATE" DataType="date"/>
      <odm:ItemDef OID="I_SMOKER" Name="SMOKER" DataType="integer">
        <odm:CodeListRef CodeListOID="CL_YN"/>
        <odm:RangeCheck Comparator="IN" SoftHard="Hard"><odm:CheckValue>0</odm:CheckValue><odm:CheckValue>1</odm:CheckValue></odm:RangeCheck>
      </odm:ItemDef>
      <odm:ItemDef OID="I_CMTRT" Name="CMTRT" DataType="text" Length="200"/>
      <odm:ItemDef OID="I_CMDOSE" Name="CMDOSE" DataType="float"/>
      <odm:CodeList OID="CL_SEX" Name="Sex" DataType="text">
        <odm:CodeListItem CodedValue="M"><odm:Decode><odm:TranslatedText xml:lang="zh-CN">男</odm:TranslatedText></odm:Decode></odm:CodeListItem>
        <odm:CodeListItem CodedValue="F"><odm:Decode><odm:TranslatedText xml:lang="zh-CN">女</odm:TranslatedText></odm:Decode></odm:CodeListItem>
      </odm:CodeList>
      <odm:CodeList OID="CL_YN" Name="YN" DataType="integer">
        <odm:CodeListItem CodedValue="1"><odm:Decode><odm:TranslatedText>Yes, daily</odm:TranslatedText></odm:Decode></odm:CodeListItem>
        <odm:CodeListItem CodedValue="0"><odm:Decode><odm:TranslatedText>No</odm:TranslatedText></odm:Decode></odm:CodeListItem>
      </odm:CodeList>
      <odm:ConditionDef OID="C_MALE" Name="male"><odm:FormalExpression Context="XPath">SEX = 'M'</odm:FormalExpression></odm:ConditionDef>
    </odm:MetaDataVersion>
  </odm:Study>
</odm:ODM>`;
    const result = importOdm(foreign);
    expect(result.issues.filter((i) => i.severity === 'error')).toEqual([]);
    const [definition] = result.definitions;
    expect(definition!.title).toBe('Vital signs');
    expect(definition!.children.map((n) => `${n.type}:${n.name}`)).toEqual(['section:IG_VS', 'listGroup:IG_CM']);
    const [sex, weight, preg, visit, smoker] = definition!.children[0]!.children;
    expect(sex).toMatchObject({
      name: 'SEX',
      title: '性别',
      type: 'radio',
      option: { optionsValue: 'M,F', optionsText: '男,女', required: 1 },
    });
    expect(weight).toMatchObject({
      type: 'real',
      option: {
        units: 'kg',
        required: 1,
        validate: { precision: 1, max: '300' },
        // The soft check stays soft: a warning the user may keep, with its exact comparator.
        checks: [{ expression: 'WEIGHT > 0', message: '应大于0', severity: 'warning' }],
      },
    });
    // The collection exception "SEX = 'M'" is the negation of showIf; as in XPath, a comparison with a
    // blank item is false, so the question shows until sex is known to be male.
    expect(preg).toMatchObject({
      type: 'radio',
      option: { optionsValue: '1,0', showIf: 'not (not isblank(SEX) and SEX == "M")' },
    });
    expect(sex!.option.titleEn).toBe('Sex');
    expect(visit).toMatchObject({ name: 'I_VISIT', type: 'date' });
    expect(smoker!.option.optionsText).toBe('Yes， daily,No');
    expect(definition!.children[1]!.children.map((c) => c.name)).toEqual(['CMTRT', 'CMDOSE']);
    const messages = result.issues.map(formatImportIssue);
    expect(messages).toEqual(
      expect.arrayContaining([
        '表单 F_VITALS 字段 I_VISIT：ItemDef 名称“VISIT-DATE”不能用作题目名称，已改为 I_VISIT',
        '表单 F_VITALS 字段 I_SMOKER：RangeCheck IN 无法转换',
        '表单 F_VITALS 字段 I_SMOKER：选项中的英文逗号已改为中文逗号',
      ]),
    );
    expect(messages.some((m) => m.includes('软核查') || m.includes('ConditionDef'))).toBe(false);
    const visible = (sexValue: string) =>
      evaluateForm(definition!, { SEX: sexValue, IG_CM: [] }, context).items.PREG!.visible;
    expect([visible('F'), visible('M'), visible('')]).toEqual([true, false, true]);
    const soft = evaluateForm(definition!, { SEX: 'F', WEIGHT: '0', IG_CM: [] }, context);
    expect(soft.items.WEIGHT!.errors).toEqual([]);
    expect(soft.items.WEIGHT!.warnings).toEqual(['应大于0']);
    const state = evaluateForm(definition!, { SEX: 'F', WEIGHT: '301', IG_CM: [{ CMDOSE: '5' }] }, context);
    expect(state.errors.map((e) => `${e.item}${e.row === undefined ? '' : `[${e.row}]`}: ${e.message}`)).toEqual([
      'WEIGHT: 不能大于300',
      'CMTRT[0]: 请输入数据',
    ]);
  });

  it('reads decimals written with a comma in range checks, and refuses ODM 2.0 by name', () => {
    const odm = (
      version: string,
      range: string,
    ) => `<ODM xmlns="http://www.cdisc.org/ns/odm/v1.3" ODMVersion="${version}"><Study OID="S"><MetaDataVersion OID="M" Name="M">
      <FormDef OID="F" Name="F"><ItemGroupRef ItemGroupOID="G" Mandatory="No"/></FormDef>
      <ItemGroupDef OID="G" Name="G"><ItemRef ItemOID="I.TEMP" Mandatory="No"/></ItemGroupDef>
      <ItemDef OID="I.TEMP" Name="TEMP" DataType="float">${range}</ItemDef>
    </MetaDataVersion></Study></ODM>`;
    const result = importOdm(
      odm('1.3.2', '<RangeCheck Comparator="GE" SoftHard="Hard"><CheckValue>35,5</CheckValue></RangeCheck>'),
    );
    expect(result.ok).toBe(true);
    expect(result.definitions[0]!.children[0]!.children[0]!.option.validate).toMatchObject({ min: '35.5' });
    const v2 = importOdm(odm('2.0', ''));
    expect(v2.ok).toBe(false);
    expect(v2.issues[0]!.message).toBe('ODM 2.0 暂不支持，请导出为 ODM 1.3');
  });

  it('approximates a hard RangeCheck GT or LT by the bound and says so; imports only the first of several studies', () => {
    const xml = `<ODM xmlns="http://www.cdisc.org/ns/odm/v1.3" ODMVersion="1.3.2"><Study OID="S"><MetaDataVersion OID="M" Name="M">
      <FormDef OID="F" Name="F"><ItemGroupRef ItemGroupOID="G" Mandatory="No"/></FormDef>
      <ItemGroupDef OID="G" Name="G"><ItemRef ItemOID="I.T" Mandatory="No"/></ItemGroupDef>
      <ItemDef OID="I.T" Name="T" DataType="float">
        <RangeCheck Comparator="GT" SoftHard="Hard"><CheckValue>35</CheckValue></RangeCheck>
        <RangeCheck Comparator="LT" SoftHard="Hard"><CheckValue>42</CheckValue></RangeCheck>
      </ItemDef>
    </MetaDataVersion></Study><Study OID="S2"><MetaDataVersion OID="M" Name="M"/></Study></ODM>`;
    const result = importOdm(xml);
    expect(result.definitions[0]!.children[0]!.children[0]!.option.validate).toEqual({ min: '35', max: '42' });
    expect(result.issues.map(formatImportIssue)).toEqual([
      '文件含多个 Study 或 MetaDataVersion，只导入第一个',
      '表单 F 字段 I.T：RangeCheck GT 35 已按“不小于”导入',
      '表单 F 字段 I.T：RangeCheck LT 42 已按“不大于”导入',
    ]);
  });

  it('refuses a DTD, broken XML and files without metadata', () => {
    expect(importOdm('<?xml version="1.0"?><!DOCTYPE ODM [<!ENTITY a "aaaa">]><ODM/>').issues[0]!.message).toBe(
      'ODM 文件不能包含 DOCTYPE 或实体声明',
    );
    expect(importOdm('<ODM><Study>').ok).toBe(false);
    expect(importOdm('<ODM></ODM>').issues[0]!.message).toMatch(/缺少 ODM\/Study\/MetaDataVersion/);
  });
});
