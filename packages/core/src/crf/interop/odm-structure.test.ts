import { describe, expect, it } from 'vitest';
import type { CrfDefinition } from '../crf-definition.schema.js';
import { formatImportIssue } from './import-result.js';
import { exportOdm, importOdm } from './odm.js';

const form = (title: string, name: string): CrfDefinition => ({
  title,
  option: {},
  children: [{ name, title: name, type: 'int', option: {}, children: [] }],
});

describe('ODM import: what a study says beyond its forms is dropped, and said so', () => {
  it('our own export with stages and a repeating form: the forms come back, the events and the repeat are warned of', () => {
    const xml = exportOdm([form('生命体征', 'sbp'), form('术后随访', 'odi')], {
      events: [
        { oid: 'SE.1', name: '基线', formIndexes: [0] },
        { oid: 'SE.2', name: '术后随访', formIndexes: [1] },
      ],
      repeatingForms: new Set([1]),
    });
    const result = importOdm(xml);
    expect(result.ok).toBe(true);
    expect(result.definitions.map((d) => d.title)).toEqual(['生命体征', '术后随访']);
    expect(result.issues.map(formatImportIssue)).toEqual([
      '文件中的访视/事件（StudyEventDef）未导入：基线、术后随访。CRF 导入只读取表单，阶段请在项目中设置',
      '文件中的重复表单设置未导入：术后随访。请在项目阶段中把表单设为可重复',
    ]);
  });

  it("REDCap's longitudinal ODM: its events, arms and repeating instruments are warned of", () => {
    const xml = `<?xml version="1.0" encoding="UTF-8" ?>
<ODM xmlns="http://www.cdisc.org/ns/odm/v1.3" xmlns:redcap="https://projectredcap.org" ODMVersion="1.3.2" FileOID="x" FileType="Snapshot" SourceSystem="REDCap">
<Study OID="Project.Demo">
<GlobalVariables>
  <StudyName>Demo</StudyName><StudyDescription>Demo</StudyDescription><ProtocolName>Demo</ProtocolName>
  <redcap:RepeatingInstrumentsAndEvents>
    <redcap:RepeatingInstruments>
      <redcap:RepeatingInstrument redcap:UniqueEventName="visit_arm_1" redcap:RepeatInstrument="vitals" redcap:CustomLabel=""/>
    </redcap:RepeatingInstruments>
  </redcap:RepeatingInstrumentsAndEvents>
</GlobalVariables>
<MetaDataVersion OID="Metadata.Demo" Name="Demo" redcap:RecordIdField="record_id">
  <Protocol><StudyEventRef StudyEventOID="Event.baseline_arm_1" OrderNumber="1" Mandatory="No"/></Protocol>
  <StudyEventDef OID="Event.baseline_arm_1" Name="Baseline" Type="Common" Repeating="No" redcap:EventName="Baseline" redcap:UniqueEventName="baseline_arm_1" redcap:ArmNum="1" redcap:ArmName="Treatment">
    <FormRef FormOID="Form.vitals" OrderNumber="1" Mandatory="No" redcap:FormName="vitals"/>
  </StudyEventDef>
  <StudyEventDef OID="Event.visit_arm_1" Name="Visit" Type="Common" Repeating="No" redcap:UniqueEventName="visit_arm_1" redcap:ArmNum="1" redcap:ArmName="Treatment">
    <FormRef FormOID="Form.vitals" OrderNumber="1" Mandatory="No" redcap:FormName="vitals"/>
  </StudyEventDef>
  <FormDef OID="Form.vitals" Name="生命体征" Repeating="No" redcap:FormName="vitals">
    <ItemGroupRef ItemGroupOID="vitals.record_id" Mandatory="No"/>
  </FormDef>
  <ItemGroupDef OID="vitals.record_id" Name="生命体征" Repeating="No">
    <ItemRef ItemOID="record_id" Mandatory="No" redcap:Variable="record_id"/>
    <ItemRef ItemOID="sbp" Mandatory="No" redcap:Variable="sbp"/>
  </ItemGroupDef>
  <ItemDef OID="record_id" Name="record_id" DataType="text" Length="999" redcap:Variable="record_id" redcap:FieldType="text"><Question><TranslatedText>Record ID</TranslatedText></Question></ItemDef>
  <ItemDef OID="sbp" Name="sbp" DataType="integer" Length="999" redcap:Variable="sbp" redcap:FieldType="text" redcap:TextValidationType="int"><Question><TranslatedText>SBP</TranslatedText></Question></ItemDef>
</MetaDataVersion>
</Study>
</ODM>`;
    const result = importOdm(xml);
    expect(result.ok).toBe(true);
    expect(result.definitions.map((d) => d.title)).toEqual(['生命体征']);
    expect(result.issues.map(formatImportIssue)).toEqual([
      '文件中的访视/事件（StudyEventDef）未导入：Baseline、Visit。CRF 导入只读取表单，阶段请在项目中设置',
      '文件中的分组（Arm）未导入：Treatment',
      '文件中的重复表单设置未导入：生命体征。请在项目阶段中把表单设为可重复',
    ]);
  });
});
