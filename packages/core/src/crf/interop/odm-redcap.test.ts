import { describe, expect, it } from 'vitest';
import type { CrfNode } from '../crf-definition.schema.js';
import { evaluateForm } from '../evaluate-form.js';
import { formatImportIssue } from './import-result.js';
import { importOdm } from './odm.js';

/**
 * Laid out as REDCap writes "CDISC ODM (XML), metadata only": one ItemGroupDef per section (OID
 * <form>.<first variable>), the dictionary in redcap: attributes, a checkbox as one boolean ItemDef per
 * choice (<var>___<code>) whose CodeLists carry redcap:CheckboxChoices, internal field types (textarea,
 * select), internal validation names (int, float), soft RangeChecks for min/max, quotes as &#039;, and
 * the form status field <form>_complete.
 */
const REDCAP_ODM = `<?xml version="1.0" encoding="UTF-8" ?>
<ODM xmlns="http://www.cdisc.org/ns/odm/v1.3" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:redcap="https://projectredcap.org" xsi:schemaLocation="http://www.cdisc.org/ns/odm/v1.3 schema/odm/ODM1-3-2.xsd" ODMVersion="1.3.2" FileOID="000-00-0000" FileType="Snapshot" Description="高血压随访" AsOfDateTime="2024-03-01T10:00:00" CreationDateTime="2024-03-01T10:00:00" SourceSystem="REDCap" SourceSystemVersion="14.0.5">
<Study OID="Project.HTNFollowUp">
<GlobalVariables>
	<StudyName>高血压随访</StudyName>
	<StudyDescription>This file contains the metadata, events, and data for REDCap project "高血压随访".</StudyDescription>
	<ProtocolName>高血压随访</ProtocolName>
	<redcap:RecordAutonumberingEnabled>1</redcap:RecordAutonumberingEnabled>
	<redcap:Purpose>2</redcap:Purpose>
</GlobalVariables>
<MetaDataVersion OID="Metadata.HTNFollowUp_2024-03-01_1000" Name="高血压随访" redcap:RecordIdField="record_id">
	<FormDef OID="Form.baseline" Name="基线访视" Repeating="No" redcap:FormName="baseline">
		<ItemGroupRef ItemGroupOID="baseline.record_id" Mandatory="No"/>
		<ItemGroupRef ItemGroupOID="baseline.sex" Mandatory="No"/>
		<ItemGroupRef ItemGroupOID="baseline.weight" Mandatory="No"/>
		<ItemGroupRef ItemGroupOID="baseline.baseline_complete" Mandatory="No"/>
	</FormDef>
	<ItemGroupDef OID="baseline.record_id" Name="基线访视" Repeating="No">
		<ItemRef ItemOID="record_id" Mandatory="No" redcap:Variable="record_id"/>
	</ItemGroupDef>
	<ItemGroupDef OID="baseline.sex" Name="人口学" Repeating="No">
		<ItemRef ItemOID="sex" Mandatory="Yes" redcap:Variable="sex"/>
		<ItemRef ItemOID="pregnant" Mandatory="No" redcap:Variable="pregnant"/>
		<ItemRef ItemOID="race___1" Mandatory="No" redcap:Variable="race"/>
		<ItemRef ItemOID="race___2" Mandatory="No" redcap:Variable="race"/>
		<ItemRef ItemOID="race___99" Mandatory="No" redcap:Variable="race"/>
		<ItemRef ItemOID="race_other" Mandatory="No" redcap:Variable="race_other"/>
		<ItemRef ItemOID="visit_date" Mandatory="No" redcap:Variable="visit_date"/>
	</ItemGroupDef>
	<ItemGroupDef OID="baseline.weight" Name="体格检查" Repeating="No">
		<ItemRef ItemOID="weight" Mandatory="No" redcap:Variable="weight"/>
		<ItemRef ItemOID="height" Mandatory="No" redcap:Variable="height"/>
		<ItemRef ItemOID="bmi" Mandatory="No" redcap:Variable="bmi"/>
		<ItemRef ItemOID="smoking" Mandatory="No" redcap:Variable="smoking"/>
		<ItemRef ItemOID="notes" Mandatory="No" redcap:Variable="notes"/>
		<ItemRef ItemOID="prior_visit" Mandatory="No" redcap:Variable="prior_visit"/>
	</ItemGroupDef>
	<ItemGroupDef OID="baseline.baseline_complete" Name="Form Status" Repeating="No">
		<ItemRef ItemOID="baseline_complete" Mandatory="No" redcap:Variable="baseline_complete"/>
	</ItemGroupDef>
	<ItemDef OID="record_id" Name="record_id" DataType="text" Length="999" redcap:Variable="record_id" redcap:FieldType="text">
		<Question><TranslatedText>受试者编号</TranslatedText></Question>
	</ItemDef>
	<ItemDef OID="sex" Name="sex" DataType="text" Length="1" redcap:Variable="sex" redcap:FieldType="radio" redcap:SectionHeader="人口学" redcap:RequiredField="y" redcap:CustomAlignment="LH">
		<Question><TranslatedText>性别</TranslatedText></Question>
		<CodeListRef CodeListOID="sex.choices"/>
	</ItemDef>
	<ItemDef OID="pregnant" Name="pregnant" DataType="boolean" Length="1" redcap:Variable="pregnant" redcap:FieldType="yesno" redcap:BranchingLogic="[sex] = &#039;2&#039;">
		<Question><TranslatedText>是否妊娠</TranslatedText></Question>
		<CodeListRef CodeListOID="pregnant.choices"/>
	</ItemDef>
	<ItemDef OID="race___1" Name="race___1" DataType="boolean" Length="1" redcap:Variable="race" redcap:FieldType="checkbox">
		<Question><TranslatedText>民族</TranslatedText></Question>
		<CodeListRef CodeListOID="race___1.choices"/>
	</ItemDef>
	<ItemDef OID="race___2" Name="race___2" DataType="boolean" Length="1" redcap:Variable="race" redcap:FieldType="checkbox">
		<Question><TranslatedText>民族</TranslatedText></Question>
		<CodeListRef CodeListOID="race___2.choices"/>
	</ItemDef>
	<ItemDef OID="race___99" Name="race___99" DataType="boolean" Length="1" redcap:Variable="race" redcap:FieldType="checkbox">
		<Question><TranslatedText>民族</TranslatedText></Question>
		<CodeListRef CodeListOID="race___99.choices"/>
	</ItemDef>
	<ItemDef OID="race_other" Name="race_other" DataType="text" Length="999" redcap:Variable="race_other" redcap:FieldType="text" redcap:BranchingLogic="[race(99)] = &#039;1&#039;">
		<Question><TranslatedText>其他民族，请注明</TranslatedText></Question>
	</ItemDef>
	<ItemDef OID="visit_date" Name="visit_date" DataType="date" Length="999" redcap:Variable="visit_date" redcap:FieldType="text" redcap:TextValidationType="date_ymd" redcap:FieldAnnotation="@TODAY">
		<Question><TranslatedText>访视日期</TranslatedText></Question>
	</ItemDef>
	<ItemDef OID="weight" Name="weight" DataType="float" Length="999" redcap:Variable="weight" redcap:FieldType="text" redcap:TextValidationType="float" redcap:SectionHeader="体格检查" redcap:FieldNote="单位：kg">
		<Question><TranslatedText>体重</TranslatedText></Question>
		<RangeCheck Comparator="GE" SoftHard="Soft">
			<CheckValue>20</CheckValue>
			<ErrorMessage><TranslatedText>The value you provided is outside the suggested range. (20 - 300). This value is admissible, but you may wish to verify.</TranslatedText></ErrorMessage>
		</RangeCheck>
		<RangeCheck Comparator="LE" SoftHard="Soft">
			<CheckValue>300</CheckValue>
			<ErrorMessage><TranslatedText>The value you provided is outside the suggested range. (20 - 300). This value is admissible, but you may wish to verify.</TranslatedText></ErrorMessage>
		</RangeCheck>
	</ItemDef>
	<ItemDef OID="height" Name="height" DataType="integer" Length="999" redcap:Variable="height" redcap:FieldType="text" redcap:TextValidationType="int">
		<Question><TranslatedText>身高（cm）</TranslatedText></Question>
	</ItemDef>
	<ItemDef OID="bmi" Name="bmi" DataType="float" Length="999" redcap:Variable="bmi" redcap:FieldType="calc" redcap:Calculation="round([weight]*10000/([height]*[height]),1)" redcap:FieldAnnotation="@HIDDEN">
		<Question><TranslatedText>体质指数</TranslatedText></Question>
	</ItemDef>
	<ItemDef OID="smoking" Name="smoking" DataType="text" Length="1" redcap:Variable="smoking" redcap:FieldType="select">
		<Question><TranslatedText>吸烟情况</TranslatedText></Question>
		<CodeListRef CodeListOID="smoking.choices"/>
	</ItemDef>
	<ItemDef OID="notes" Name="notes" DataType="text" Length="999" redcap:Variable="notes" redcap:FieldType="textarea">
		<Question><TranslatedText>备注</TranslatedText></Question>
	</ItemDef>
	<ItemDef OID="prior_visit" Name="prior_visit" DataType="date" Length="999" redcap:Variable="prior_visit" redcap:FieldType="text" redcap:TextValidationType="date_ymd" redcap:BranchingLogic="[screening_arm_1][visit_date] &lt;&gt; &#039;&#039;">
		<Question><TranslatedText>上次访视日期</TranslatedText></Question>
	</ItemDef>
	<ItemDef OID="baseline_complete" Name="baseline_complete" DataType="text" Length="1" redcap:Variable="baseline_complete" redcap:FieldType="select" redcap:SectionHeader="Form Status">
		<Question><TranslatedText>Complete?</TranslatedText></Question>
		<CodeListRef CodeListOID="baseline_complete.choices"/>
	</ItemDef>
	<CodeList OID="sex.choices" Name="sex" DataType="text" redcap:Variable="sex">
		<CodeListItem CodedValue="1"><Decode><TranslatedText>男</TranslatedText></Decode></CodeListItem>
		<CodeListItem CodedValue="2"><Decode><TranslatedText>女</TranslatedText></Decode></CodeListItem>
	</CodeList>
	<CodeList OID="pregnant.choices" Name="pregnant" DataType="boolean" redcap:Variable="pregnant">
		<CodeListItem CodedValue="1"><Decode><TranslatedText>Yes</TranslatedText></Decode></CodeListItem>
		<CodeListItem CodedValue="0"><Decode><TranslatedText>No</TranslatedText></Decode></CodeListItem>
	</CodeList>
	<CodeList OID="race___1.choices" Name="race___1" DataType="boolean" redcap:Variable="race" redcap:CheckboxChoices="1, 汉族 | 2, 回族 | 99, 其他">
		<CodeListItem CodedValue="1"><Decode><TranslatedText>Checked</TranslatedText></Decode></CodeListItem>
		<CodeListItem CodedValue="0"><Decode><TranslatedText>Unchecked</TranslatedText></Decode></CodeListItem>
	</CodeList>
	<CodeList OID="race___2.choices" Name="race___2" DataType="boolean" redcap:Variable="race" redcap:CheckboxChoices="1, 汉族 | 2, 回族 | 99, 其他">
		<CodeListItem CodedValue="1"><Decode><TranslatedText>Checked</TranslatedText></Decode></CodeListItem>
		<CodeListItem CodedValue="0"><Decode><TranslatedText>Unchecked</TranslatedText></Decode></CodeListItem>
	</CodeList>
	<CodeList OID="race___99.choices" Name="race___99" DataType="boolean" redcap:Variable="race" redcap:CheckboxChoices="1, 汉族 | 2, 回族 | 99, 其他">
		<CodeListItem CodedValue="1"><Decode><TranslatedText>Checked</TranslatedText></Decode></CodeListItem>
		<CodeListItem CodedValue="0"><Decode><TranslatedText>Unchecked</TranslatedText></Decode></CodeListItem>
	</CodeList>
	<CodeList OID="smoking.choices" Name="smoking" DataType="text" redcap:Variable="smoking">
		<CodeListItem CodedValue="0"><Decode><TranslatedText>从不</TranslatedText></Decode></CodeListItem>
		<CodeListItem CodedValue="1"><Decode><TranslatedText>已戒烟</TranslatedText></Decode></CodeListItem>
		<CodeListItem CodedValue="2"><Decode><TranslatedText>吸烟</TranslatedText></Decode></CodeListItem>
	</CodeList>
	<CodeList OID="baseline_complete.choices" Name="baseline_complete" DataType="text" redcap:Variable="baseline_complete">
		<CodeListItem CodedValue="0"><Decode><TranslatedText>Incomplete</TranslatedText></Decode></CodeListItem>
		<CodeListItem CodedValue="1"><Decode><TranslatedText>Unverified</TranslatedText></Decode></CodeListItem>
		<CodeListItem CodedValue="2"><Decode><TranslatedText>Complete</TranslatedText></Decode></CodeListItem>
	</CodeList>
</MetaDataVersion>
</Study>
</ODM>`;

const walk = (nodes: readonly CrfNode[]): CrfNode[] => nodes.flatMap((n) => [n, ...walk(n.children)]);
const context = { now: new Date(Date.UTC(2024, 5, 15, 2)), gender: null };

describe('REDCap’s own ODM export', () => {
  it('reads the redcap: attributes as the dictionary importer reads a dictionary: types, sections, logic, calculations, action tags, notes, required', () => {
    const result = importOdm(REDCAP_ODM);
    expect(result.ok).toBe(true);
    const [definition] = result.definitions;
    expect(definition).toMatchObject({ id: 'baseline', title: '基线访视' });
    expect(definition!.children.map((n) => `${n.type}:${n.name}:${n.title}`)).toEqual([
      'input:record_id:受试者编号',
      'section:baseline_section_1:人口学',
      'section:baseline_section_2:体格检查',
    ]);
    const items = new Map(walk(definition!.children).map((n) => [n.name, n]));
    expect(items.has('baseline_complete')).toBe(false);
    expect(items.get('sex')).toMatchObject({
      type: 'radio',
      option: { optionsValue: '1,2', optionsText: '男,女', required: 1, itemLayout: 'horizontal' },
    });
    expect(items.get('pregnant')).toMatchObject({
      type: 'radio',
      option: { optionsValue: '1,0', optionsText: '是,否', showIf: 'not isblank(sex) and sex == "2"' },
    });
    expect(items.get('race_other')!.option.showIf).toBe('checked(race, "99") == "1"');
    expect(items.get('visit_date')).toMatchObject({ type: 'date', option: { defaultValue: 'now' } });
    expect(items.get('weight')).toMatchObject({
      type: 'real',
      option: {
        description: '单位：kg',
        checks: [
          { expression: 'weight >= 20', severity: 'warning' },
          { expression: 'weight <= 300', severity: 'warning' },
        ],
      },
    });
    expect(items.get('height')!.type).toBe('int');
    expect(items.get('bmi')).toMatchObject({
      type: 'real',
      option: { calc: 'round(weight * 10000 / (height * height), 1)', notDisplayed: 1, readOnly: 1 },
    });
    expect(items.get('smoking')).toMatchObject({ type: 'select', option: { optionsValue: '0,1,2' } });
    expect(items.get('notes')!.type).toBe('textarea');

    const state = evaluateForm(definition!, { sex: '2', race: ['99'], weight: '70', height: '175' }, context);
    expect(state.items.pregnant!.visible).toBe(true);
    expect(state.items.race_other!.visible).toBe(true);
    expect(state.values.bmi).toBe('22.9');
  });

  it('rebuilds a checkbox exported as one boolean ItemDef per choice into one checkbox item', () => {
    const race = walk(importOdm(REDCAP_ODM).definitions[0]!.children).filter((n) => n.name.startsWith('race'));
    expect(race.map((n) => n.name)).toEqual(['race', 'race_other']);
    expect(race[0]).toMatchObject({
      type: 'checkbox',
      title: '民族',
      option: { optionsValue: '1,2,99', optionsText: '汉族,回族,其他' },
    });
  });

  it('does not lose logic silently: what cannot be translated is reported on its field', () => {
    const messages = importOdm(REDCAP_ODM).issues.map(formatImportIssue);
    expect(messages).toEqual([
      "表单 Form.baseline 字段 prior_visit：分支逻辑无法转换，该字段将始终显示（引用了其他事件的字段（[事件][字段]），无法转换）：[screening_arm_1][visit_date] <> ''",
    ]);
  });
});
