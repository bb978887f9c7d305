import { XMLParser } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import type { CrfDefinition, CrfNode } from '../crf-definition.schema.js';
import { evaluateForm } from '../evaluate-form.js';
import { baselineCrf, item } from '../test/fixtures.js';
import { ourAlias, withoutOurAliases } from '../test/odm-foreign.js';
import { formatImportIssue } from './import-result.js';
import { exportOdm, importOdm } from './odm.js';

const context = { now: new Date(Date.UTC(2024, 5, 15, 2)), gender: null };
const walk = (nodes: readonly CrfNode[]): CrfNode[] => nodes.flatMap((n) => [n, ...walk(n.children)]);
const byName = (definition: CrfDefinition) => new Map(walk(definition.children).map((n) => [n.name, n]));
const NOW = new Date(Date.UTC(2024, 0, 1));

/** A small foreign MetaDataVersion: one form, its groups and items, plus whatever else is given. */
const foreign = (body: string, extra = '') => `<?xml version="1.0" encoding="UTF-8"?>
<ODM xmlns="http://www.cdisc.org/ns/odm/v1.3" ODMVersion="1.3.2" FileType="Snapshot" FileOID="X" CreationDateTime="2024-01-01T00:00:00">
  <Study OID="S"><MetaDataVersion OID="V1" Name="V1">
    <FormDef OID="F_DM" Name="Demographics"><ItemGroupRef ItemGroupOID="IG_DM" Mandatory="Yes"/>${body}</FormDef>
    <FormDef OID="F_OTHER" Name="Other"><ItemGroupRef ItemGroupOID="IG_OTHER" Mandatory="No"/></FormDef>
    <ItemGroupDef OID="IG_DM" Name="DM">
      <ItemRef ItemOID="IT.AGE" Mandatory="No"/>
      <ItemRef ItemOID="I_SEX" Mandatory="No"/>
      <ItemRef ItemOID="I_WEIGHT" Mandatory="No"/>
      <ItemRef ItemOID="I_HEIGHT" Mandatory="No"/>
      <ItemRef ItemOID="I_BMI" Mandatory="No" MethodOID="M_BMI"/>
      <ItemRef ItemOID="I_PREG" Mandatory="No" CollectionExceptionConditionOID="C_XPATH"/>
      <ItemRef ItemOID="I_LMP" Mandatory="No" CollectionExceptionConditionOID="C_TEXT"/>
      <ItemRef ItemOID="I_SCORE" Mandatory="No" MethodOID="M_SCORE"/>
    </ItemGroupDef>
    <ItemGroupDef OID="IG_OTHER" Name="Other"><ItemRef ItemOID="I_ELSEWHERE" Mandatory="No"/></ItemGroupDef>
    <ItemDef OID="IT.AGE" Name="AGE" DataType="integer"/>
    <ItemDef OID="I_SEX" Name="SEX" DataType="text"/>
    <ItemDef OID="I_WEIGHT" Name="WEIGHT" DataType="float"/>
    <ItemDef OID="I_HEIGHT" Name="HEIGHT" DataType="float"/>
    <ItemDef OID="I_BMI" Name="BMI" DataType="float"/>
    <ItemDef OID="I_PREG" Name="PREG" DataType="boolean"/>
    <ItemDef OID="I_LMP" Name="LMP" DataType="date"/>
    <ItemDef OID="I_SCORE" Name="SCORE" DataType="integer"/>
    <ItemDef OID="I_ELSEWHERE" Name="ELSEWHERE" DataType="integer"/>
    ${extra}
  </MetaDataVersion></Study>
</ODM>`;

const standardConditions = `
    <ConditionDef OID="C_XPATH" Name="male or child">
      <Description><TranslatedText>Not asked of men and children</TranslatedText></Description>
      <FormalExpression Context="XPath">/ODM/ClinicalData/SubjectData/StudyEventData/FormData/ItemGroupData/ItemData[@ItemOID='I_SEX']/@Value eq 'M' or $IT.AGE lt 12</FormalExpression>
    </ConditionDef>
    <ConditionDef OID="C_TEXT" Name="not pregnant">
      <Description><TranslatedText>Only when pregnant</TranslatedText></Description>
      <FormalExpression Context="OpenClinica">SE_BASE.F_DM.IG_DM.I_PREG != 1 or not(AGE &gt;= 12)</FormalExpression>
    </ConditionDef>
    <MethodDef OID="M_BMI" Name="BMI" Type="Computation">
      <Description><TranslatedText>BMI</TranslatedText></Description>
      <FormalExpression Context="XPath">round(I_WEIGHT div ((I_HEIGHT div 100) * (I_HEIGHT div 100)) * 10) div 10</FormalExpression>
    </MethodDef>
    <MethodDef OID="M_SCORE" Name="score" Type="Computation">
      <Description><TranslatedText>score</TranslatedText></Description>
      <FormalExpression Context="XPath">floor(IT.AGE div 10) + IT.AGE mod 10 - 1</FormalExpression>
    </MethodDef>`;

describe('ODM ConditionDef and MethodDef import', () => {
  it('a collection exception becomes the negated showIf and a Computation the calc: XPath paths, $variables, dotted OIDs, ItemDef names, eq/lt/div/mod/floor', () => {
    const result = importOdm(foreign('', standardConditions));
    expect(result.issues.filter((i) => i.severity === 'error')).toEqual([]);
    expect(result.issues.filter((i) => i.form === 'F_DM')).toEqual([]);
    const items = byName(result.definitions[0]!);
    expect(items.get('PREG')!.option.showIf).toBe(
      'not (not isblank(SEX) and SEX == "M" or not isblank(AGE) and AGE < 12)',
    );
    expect(items.get('LMP')!.option.showIf).toBe(
      'not (not isblank(PREG) and PREG != 1 or not (not isblank(AGE) and AGE >= 12))',
    );
    expect(items.get('BMI')!.option.calc).toBe('round(WEIGHT / (HEIGHT / 100 * (HEIGHT / 100)) * 10, 0) / 10');
    expect(items.get('SCORE')!.option.calc).toBe(
      'if(AGE / 10 >= 0, rounddown(AGE / 10, 0), roundup(AGE / 10, 0)) + AGE % 10 - 1',
    );

    const state = (values: Record<string, string>) => evaluateForm(result.definitions[0]!, values, context);
    // As in XPath, a comparison with an empty item is false: nothing excludes the item yet.
    expect(state({}).items.PREG!.visible).toBe(true);
    expect(state({ SEX: 'M', AGE: '30' }).items.PREG!.visible).toBe(false);
    expect(state({ SEX: 'F', AGE: '8' }).items.PREG!.visible).toBe(false);
    expect(state({ SEX: 'F', AGE: '30' }).items.PREG!.visible).toBe(true);
    expect(state({ SEX: 'F', AGE: '30', PREG: '1' }).items.LMP!.visible).toBe(true);
    expect(state({ SEX: 'F', AGE: '30', PREG: '0' }).items.LMP!.visible).toBe(false);
    const calculated = state({ WEIGHT: '70', HEIGHT: '175', AGE: '47' });
    expect(calculated.values.BMI).toBe('22.9');
    expect(calculated.values.SCORE).toBe('10');
  });

  it('reads relative XPath paths, $variables right before an operator and plain-text division without spaces', () => {
    const method = (oid: string, text: string) =>
      `<MethodDef OID="${oid}" Name="m" Type="Computation"><Description><TranslatedText>m</TranslatedText></Description><FormalExpression Context="XPath">${text}</FormalExpression></MethodDef>`;
    const xml = foreign(
      '',
      `<ConditionDef OID="C_XPATH" Name="c"><Description><TranslatedText>c</TranslatedText></Description>
         <FormalExpression Context="XPath">ItemGroupData/ItemData[@ItemOID="I_SEX"]/@Value = 'M'</FormalExpression></ConditionDef>
       ${method('M_BMI', 'I_WEIGHT/I_HEIGHT')}${method('M_SCORE', '$IT.AGE-1')}`,
    ).replace(' CollectionExceptionConditionOID="C_TEXT"', '');
    const result = importOdm(xml);
    expect(result.issues).toEqual([]);
    const items = byName(result.definitions[0]!);
    expect(items.get('PREG')!.option.showIf).toBe('not (not isblank(SEX) and SEX == "M")');
    expect(items.get('BMI')!.option.calc).toBe('WEIGHT / HEIGHT');
    expect(items.get('SCORE')!.option.calc).toBe('AGE - 1');
  });

  it('REDCap logic in a FormalExpression is translated with REDCap’s blank rules (numbers and texts apart), references by OID or name', () => {
    const result = importOdm(
      foreign(
        '',
        `<ConditionDef OID="C_XPATH" Name="c"><Description><TranslatedText>c</TranslatedText></Description>
           <FormalExpression Context="REDCap">[I_SEX] = 'M'</FormalExpression></ConditionDef>
         <ConditionDef OID="C_TEXT" Name="c"><Description><TranslatedText>c</TranslatedText></Description>
           <FormalExpression Context="REDCap">[PREG] &lt;&gt; '1' or [IT.AGE] &lt; 12 or [SEX] &lt; 'M'</FormalExpression></ConditionDef>`,
      ).replace(/ MethodOID="[^"]*"/g, ''),
    );
    const items = byName(result.definitions[0]!);
    expect(items.get('PREG')!.option.showIf).toBe('not (not isblank(SEX) and SEX == "M")');
    // REDCap orders a blank below every number (AGE < 12 is false while blank) and first among texts.
    expect(items.get('LMP')!.option.showIf).toBe(
      'not (isblank(PREG) or PREG != "1" or not isblank(AGE) and AGE < 12 or (isblank(SEX) or SEX < "M"))',
    );
  });

  it('on a group, the ItemGroupRef’s collection exception becomes the section’s showIf', () => {
    const xml = foreign(
      '<ItemGroupRef ItemGroupOID="IG_PREG" Mandatory="No" CollectionExceptionConditionOID="C_MALE"/>',
      `<ItemGroupDef OID="IG_PREG" Name="Pregnancy"><ItemRef ItemOID="I_EDD" Mandatory="No"/></ItemGroupDef>
       <ItemDef OID="I_EDD" Name="EDD" DataType="date"/>
       <ConditionDef OID="C_MALE" Name="male"><Description><TranslatedText>men</TranslatedText></Description>
         <FormalExpression Context="XPath">I_SEX = 'M'</FormalExpression></ConditionDef>`,
    ).replace(/ (MethodOID|CollectionExceptionConditionOID)="[^"]*"\/>\n/g, '/>\n');
    const result = importOdm(xml);
    const group = result.definitions[0]!.children.find((n) => n.name === 'IG_PREG')!;
    expect(group.option.showIf).toBe('not (not isblank(SEX) and SEX == "M")');
  });

  it('reports only what cannot be expressed: items of other forms, unknown functions, missing or text-only definitions, imputations; the item imports without the logic', () => {
    const xml = foreign(
      '',
      `<ConditionDef OID="C_XPATH" Name="elsewhere"><Description><TranslatedText>x</TranslatedText></Description>
         <FormalExpression Context="XPath">I_ELSEWHERE &gt; 1</FormalExpression></ConditionDef>
       <ConditionDef OID="C_TEXT" Name="prose"><Description><TranslatedText>Only if pregnant</TranslatedText></Description></ConditionDef>
       <MethodDef OID="M_BMI" Name="f" Type="Computation"><Description><TranslatedText>x</TranslatedText></Description>
         <FormalExpression Context="XPath">substring-before(I_WEIGHT, '.')</FormalExpression></MethodDef>`,
    ).replace('MethodOID="M_SCORE"', 'MethodOID="M_IMPUTE"');
    const result = importOdm(
      xml.replace(
        '</MetaDataVersion>',
        `<MethodDef OID="M_IMPUTE" Name="i" Type="Imputation"><Description><TranslatedText>x</TranslatedText></Description>
           <FormalExpression Context="XPath">0</FormalExpression></MethodDef></MetaDataVersion>`,
      ),
    );
    expect(result.ok).toBe(true);
    expect(result.issues.map(formatImportIssue)).toEqual([
      "表单 F_DM 字段 I_BMI：计算方法 MethodDef M_BMI 无法转换，该题不会自动计算（函数 substring-before() 无法转换）：substring-before(I_WEIGHT, '.')",
      '表单 F_DM 字段 I_PREG：显示条件 ConditionDef C_XPATH 无法转换，该题将始终显示（引用的题目不在本表单中：I_ELSEWHERE）：I_ELSEWHERE > 1',
      '表单 F_DM 字段 I_LMP：显示条件 ConditionDef C_TEXT 没有 FormalExpression，无法转换，该题将始终显示',
      '表单 F_DM 字段 I_SCORE：计算方法 MethodDef M_IMPUTE 的类型是 Imputation，只有 Computation 能转换为计算公式',
    ]);
    const items = byName(result.definitions[0]!);
    for (const name of ['BMI', 'PREG', 'LMP', 'SCORE']) {
      expect(items.get(name)!.option.showIf).toBeUndefined();
      expect(items.get(name)!.option.calc).toBeUndefined();
    }
  });

  it('logic that translates but would break the form (a calculation cycle) is taken back with the reason', () => {
    const xml = foreign(
      '',
      `<ConditionDef OID="C_XPATH" Name="c"><Description><TranslatedText>c</TranslatedText></Description>
         <FormalExpression Context="XPath">I_SEX = 'M'</FormalExpression></ConditionDef>
       <MethodDef OID="M_BMI" Name="m" Type="Computation"><Description><TranslatedText>m</TranslatedText></Description>
         <FormalExpression Context="XPath">I_SCORE + 1</FormalExpression></MethodDef>
       <MethodDef OID="M_SCORE" Name="m" Type="Computation"><Description><TranslatedText>m</TranslatedText></Description>
         <FormalExpression Context="XPath">I_BMI + 1</FormalExpression></MethodDef>`,
    ).replace(' CollectionExceptionConditionOID="C_TEXT"', '');
    const result = importOdm(xml);
    expect(result.ok).toBe(true);
    const messages = result.issues.map(formatImportIssue);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatch(
      /^表单 F_DM 字段 I_(BMI|SCORE)：ODM 中的显示条件或计算方法导入后不能使用，已去掉（.*循环依赖/,
    );
    const items = byName(result.definitions[0]!);
    expect([items.get('BMI')!.option.calc, items.get('SCORE')!.option.calc].filter(Boolean)).toHaveLength(1);
    expect(items.get('PREG')!.option.showIf).toBe('not (not isblank(SEX) and SEX == "M")');
  });
});

describe('ODM TranslatedText in several languages', () => {
  const bilingual = `<?xml version="1.0"?>
<ODM xmlns="http://www.cdisc.org/ns/odm/v1.3" ODMVersion="1.3.2"><Study OID="S"><MetaDataVersion OID="V" Name="V">
  <FormDef OID="F_A" Name="A"><ItemGroupRef ItemGroupOID="G" Mandatory="No"/></FormDef>
  <FormDef OID="F_B" Name="B"><ItemGroupRef ItemGroupOID="G2" Mandatory="No"/></FormDef>
  <ItemGroupDef OID="G" Name="G"><ItemRef ItemOID="I_SEX" Mandatory="No"/><ItemRef ItemOID="I_AGE" Mandatory="No"/></ItemGroupDef>
  <ItemGroupDef OID="G2" Name="G2"><ItemRef ItemOID="I_NOTE" Mandatory="No"/><ItemRef ItemOID="I_HT" Mandatory="No"/></ItemGroupDef>
  <ItemDef OID="I_SEX" Name="SEX" DataType="integer">
    <Question><TranslatedText xml:lang="en">Sex</TranslatedText><TranslatedText xml:lang="fr">Sexe</TranslatedText><TranslatedText xml:lang="zh-Hans">性别</TranslatedText></Question>
    <CodeListRef CodeListOID="CL_SEX"/>
  </ItemDef>
  <ItemDef OID="I_AGE" Name="AGE" DataType="integer">
    <Question><TranslatedText xml:lang="de">Alter</TranslatedText><TranslatedText xml:lang="zh">年龄</TranslatedText></Question>
  </ItemDef>
  <ItemDef OID="I_NOTE" Name="NOTE" DataType="text">
    <Question><TranslatedText xml:lang="ja">備考</TranslatedText><TranslatedText xml:lang="en-GB">Note</TranslatedText></Question>
  </ItemDef>
  <ItemDef OID="I_HT" Name="HT" DataType="float"><Question><TranslatedText>Height</TranslatedText></Question></ItemDef>
  <CodeList OID="CL_SEX" Name="sex" DataType="integer">
    <CodeListItem CodedValue="1"><Decode><TranslatedText xml:lang="en">Male</TranslatedText><TranslatedText xml:lang="zh-CN">男</TranslatedText></Decode></CodeListItem>
    <CodeListItem CodedValue="2"><Decode><TranslatedText xml:lang="en">Female</TranslatedText><TranslatedText xml:lang="zh-CN">女</TranslatedText></Decode></CodeListItem>
  </CodeList>
</MetaDataVersion></Study></ODM>`;

  it('keeps Chinese as the title and English as titleEn, prefers zh, then en, then the untagged text, and names the dropped languages once per form', () => {
    const result = importOdm(bilingual);
    expect(result.ok).toBe(true);
    const [a, b] = result.definitions;
    const itemsA = byName(a!);
    expect(itemsA.get('SEX')).toMatchObject({ title: '性别', option: { titleEn: 'Sex', optionsText: '男,女' } });
    expect(itemsA.get('AGE')!.title).toBe('年龄');
    expect(itemsA.get('AGE')!.option.titleEn).toBeUndefined();
    const itemsB = byName(b!);
    expect(itemsB.get('NOTE')!.title).toBe('Note');
    expect(itemsB.get('NOTE')!.option.titleEn).toBeUndefined();
    expect(itemsB.get('HT')!.title).toBe('Height');
    expect(result.issues.map(formatImportIssue)).toEqual([
      '表单 F_A：以下语言的文字未导入：fr、en、de（题目标题优先用中文，其次英文；中英文都有时英文存为 titleEn）',
      '表单 F_B：以下语言的文字未导入：ja（题目标题优先用中文，其次英文；中英文都有时英文存为 titleEn）',
    ]);
  });

  it('titleEn is a known option field, exported as an English TranslatedText of the Question', () => {
    const definition: CrfDefinition = {
      id: 'vs',
      title: '生命体征',
      option: {},
      children: [item('real', 'weight', '体重', { titleEn: 'Body weight', units: 'kg' })],
    };
    const xml = exportOdm([definition], { now: NOW });
    expect(xml).toContain(
      '<Question><TranslatedText xml:lang="zh-CN">体重</TranslatedText><TranslatedText xml:lang="en">Body weight</TranslatedText></Question>',
    );
    const result = importOdm(xml);
    expect(result.issues).toEqual([]);
    expect(result.definitions).toEqual([definition]);
  });
});

describe('ODM export of logic', () => {
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '@',
    isArray: (n) => ['ItemDef', 'ItemRef', 'ItemGroupRef', 'ConditionDef', 'MethodDef', 'ItemGroupDef'].includes(n),
  });

  it('writes showIf as a collection-exception ConditionDef and calc as a Computation MethodDef, with ItemOIDs, and leaves them out of our own attribute', () => {
    const doc = parser.parse(exportOdm([baselineCrf()], { now: NOW }));
    const mdv = doc.ODM.Study.MetaDataVersion;
    const refs = mdv.ItemGroupDef.flatMap((g: { ItemRef?: Array<Record<string, string>> }) => g.ItemRef ?? []);
    const bmiRef = refs.find((r: Record<string, string>) => r['@ItemOID'] === 'I.baseline.bmi');
    expect(bmiRef['@MethodOID']).toBe('MT.I.baseline.bmi');
    const method = mdv.MethodDef.find((m: Record<string, string>) => m['@OID'] === 'MT.I.baseline.bmi');
    expect(method['@Type']).toBe('Computation');
    expect(method.FormalExpression).toEqual({
      '#text': 'bmi(I.baseline.weight, I.baseline.height)',
      '@Context': 'ecrf',
    });
    const historyRef = mdv.FormDef.ItemGroupRef.find(
      (r: Record<string, string>) => r['@ItemGroupOID'] === 'IG.baseline.history',
    );
    expect(historyRef['@CollectionExceptionConditionOID']).toBe('COND.IG.baseline.history');
    const condition = mdv.ConditionDef.find((c: Record<string, string>) => c['@OID'] === 'COND.IG.baseline.history');
    expect(condition.FormalExpression['#text']).toBe('not (I.baseline.age >= 18)');
    expect(condition.Description.TranslatedText['#text']).toBe('不满足显示条件时不采集：age >= 18');
    const options = [...mdv.ItemDef, ...mdv.ItemGroupDef].map(
      (d: { Alias?: unknown }) => ourAlias(d, 'CrfOption') ?? '',
    );
    expect(options.some((o: string) => /"showIf"|"calc"/.test(o))).toBe(false);
  });

  it('a reader that ignores our namespace gets showIf and calc from the standard elements', () => {
    const xml = withoutOurAliases(exportOdm([baselineCrf()], { now: NOW }));
    const result = importOdm(xml);
    expect(result.ok).toBe(true);
    const items = byName(result.definitions[0]!);
    expect(items.get('age')!.option.calc).toBe('age(birth, visit_date)');
    expect(items.get('bmi')!.option.calc).toBe('bmi(weight, height)');
    expect(items.get('total_daily')!.option.calc).toBe('sum(daily)');
    expect(items.get('baseline_history')!.option.showIf).toBe('age >= 18');
  });

  it('gives items whose names differ only in Chinese characters their own OIDs', () => {
    const definition: CrfDefinition = {
      id: 'cn',
      title: '中文名称',
      option: {},
      children: [
        item('int', '年龄', '年龄'),
        item('int', '体重', '体重'),
        item('int', '合计', '合计', { calc: '年龄 + 体重', showIf: '年龄 > 0' }),
      ],
    };
    const xml = exportOdm([definition], { now: NOW });
    expect(xml).toContain('<FormalExpression Context="ecrf">I.cn.__ + I.cn.__.2</FormalExpression>');
    expect(importOdm(xml).definitions).toEqual([definition]);
    const stripped = importOdm(withoutOurAliases(xml));
    expect(byName(stripped.definitions[0]!).get('合计')!.option).toMatchObject({
      calc: '年龄 + 体重',
      showIf: '年龄 > 0',
    });
  });
});
