import { XMLParser } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import type { CrfDefinition } from '../crf-definition.schema.js';
import { nodesByName } from '../record-values.js';
import { item } from '../test/fixtures.js';
import { ourAlias } from '../test/odm-foreign.js';
import {
  odmClinicalDataOpen,
  odmDateValue,
  odmRecordGroups,
  odmSubjectData,
  odmTimeValue,
  ODM_CLINICAL_DATA_CLOSE,
  readOdmClinicalData,
} from './odm-clinical.js';
import { exportOdm, importOdm, odmMetadata } from './odm.js';

const NOW = new Date(Date.UTC(2024, 0, 1));

const visit: CrfDefinition = {
  id: 'v',
  title: '访视',
  option: {},
  children: [
    item('radio', 'sex', '性别', { optionsValue: '1,2', optionsText: '男,女' }),
    item('checkbox', 'history', '既往史', {
      optionsValue: 'htn,dm,other',
      optionsText: '高血压,糖尿病,其他',
      addition: '请注明',
      additionIndex: '2',
      required: 1,
    }),
    item('int', 'dm_years', '糖尿病病程', { trigex: 'history:1' }),
    item('partialDate', 'lmp', '末次月经', { trig: 'sex', tindex: '1' }),
    item('datetime', 'seen_at', '就诊时间', { format: 'yyyy-MM-dd HH:mm' }),
    item('time', 'dose_time', '服药时间', { format: 'Hour' }),
    item('fileUpload', 'report', '化验单'),
    item('listGroup', 'meds', '用药', {}, [
      item('input', 'drug', '药物'),
      item('select', 'route', '途径', {
        optionsValue: 'po,iv,other',
        optionsText: '口服,静脉,其他',
        addition: '',
        additionIndex: '2',
      }),
    ]),
  ],
};

describe('ODM ClinicalData values', () => {
  it('dates in ODM’s forms: T and seconds in a date-time, unknown parts left off the end or written as dashes', () => {
    expect(odmDateValue('2024-03-01', 'yyyy-MM-dd')).toBe('2024-03-01');
    expect(odmDateValue('2024-03-01 08:30', 'yyyy-MM-dd HH:mm')).toBe('2024-03-01T08:30:00');
    expect(odmDateValue('2024-03-01 08', 'yyyy-MM-dd HH')).toBe('2024-03-01T08:00:00');
    expect(odmDateValue('2024-03-01 08:30:15', 'yyyy-MM-dd HH:mm:ss')).toBe('2024-03-01T08:30:15');
    expect(odmDateValue('2024-UK-UK', 'yyyy-MM-dd')).toBe('2024');
    expect(odmDateValue('2024-05-UK', 'yyyy-MM-dd')).toBe('2024-05');
    expect(odmDateValue('UKUK-05-15', 'yyyy-MM-dd')).toBe('--05-15');
    expect(odmDateValue('2024-UK-15', 'yyyy-MM-dd')).toBe('2024---15');
    expect(odmDateValue('2024-05', 'yyyy-MM')).toBe('2024-05');
    // Kept from before the item's format changed: read in the format of its own length.
    expect(odmDateValue('2024-03-01 08:30:00', 'yyyy-MM-dd')).toBe('2024-03-01T08:30:00');
    expect(odmDateValue('not a date', 'yyyy-MM-dd')).toBe('not a date');
    expect(odmTimeValue('08:30')).toBe('08:30:00');
    expect(odmTimeValue('08:30:15')).toBe('08:30:15');
  });

  it('a record: one 1/0 per option of a multiple choice, the addition text its own item, dates and times in ODM’s forms, an upload by its file’s name, rows as repeating groups', () => {
    const meta = odmMetadata([visit], { now: NOW });
    const layout = meta.layouts[0]!;
    const values = {
      sex: '2',
      history: ['dm', 'other'],
      history_addition: '痛风',
      dm_years: 3,
      lmp: '2024-UK-UK',
      seen_at: '2024-03-01 08:30',
      dose_time: '08:30',
      report: 'k123',
      meds: [
        { drug: '塞来昔布', route: 'po' },
        { drug: '中药', route: 'other', route_addition: '外敷' },
      ],
    };
    const groups = odmRecordGroups(layout, nodesByName(visit), values, {
      fileNames: new Map([['k123', '血常规.pdf']]),
    });
    const xml = `${meta.head}\n${odmClinicalDataOpen(meta.studyOid, meta.metaDataVersionOid)}\n${odmSubjectData('P1', [
      { eventOid: 'SE.1', forms: [{ formOid: layout.formOid, groups }] },
    ])}${ODM_CLINICAL_DATA_CLOSE}`;
    const read = readOdmClinicalData(xml).map((v) => [v.itemOid, v.groupRepeatKey, v.value]);
    expect(read).toEqual([
      ['I.v.sex', null, '2'],
      ['I.v.history___htn', null, '0'],
      ['I.v.history___dm', null, '1'],
      ['I.v.history___other', null, '1'],
      ['I.v.history_addition', null, '痛风'],
      ['I.v.dm_years', null, '3'],
      ['I.v.lmp', null, '2024'],
      ['I.v.seen_at', null, '2024-03-01T08:30:00'],
      ['I.v.dose_time', null, '08:30:00'],
      ['I.v.report', null, '血常规.pdf'],
      ['I.v.drug', '1', '塞来昔布'],
      ['I.v.route', '1', 'po'],
      ['I.v.drug', '2', '中药'],
      ['I.v.route', '2', 'other'],
      ['I.v.route_addition', '2', '外敷'],
    ]);
    // Every ItemData names an ItemDef of the metadata.
    const defs = new Set([...xml.matchAll(/<ItemDef OID="([^"]+)"/g)].map((m) => m[1]));
    for (const [oid] of read) expect(defs.has(oid as string), oid as string).toBe(true);
    // A blank multiple choice writes nothing; a shifted partial date is withheld.
    expect(odmRecordGroups(layout, nodesByName(visit), { history: [], lmp: '2024-UK-UK' }, { shiftDays: 3 })).toEqual(
      [],
    );
  });
});

describe('ODM metadata of multiple choices, additions and skip rules', () => {
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '@',
    isArray: (n) => ['ItemDef', 'ItemRef', 'ConditionDef', 'Alias'].includes(n),
  });
  const mdv = parser.parse(exportOdm([visit], { now: NOW })).ODM.Study.MetaDataVersion;
  const def = (oid: string) => mdv.ItemDef.find((d: Record<string, string>) => d['@OID'] === oid);
  const main = mdv.ItemGroupDef.find((g: Record<string, string>) => g['@OID'] === 'IG.v.MAIN');
  const ref = (oid: string) => main.ItemRef.find((r: Record<string, string>) => r['@ItemOID'] === oid);
  const condition = (oid: string) =>
    mdv.ConditionDef.find((c: Record<string, string>) => c['@OID'] === oid).FormalExpression['#text'];

  it('a checkbox is one boolean item per option, named <item>___<code>, our definition on the first', () => {
    const dm = def('I.v.history___dm');
    expect(dm['@Name']).toBe('history___dm');
    expect(dm['@DataType']).toBe('boolean');
    expect(dm.Question.TranslatedText['#text']).toBe('既往史：糖尿病');
    expect(ourAlias(dm, 'CrfChoiceOf')).toBe('I.v.history');
    expect(ourAlias(def('I.v.history___htn'), 'CrfType')).toBe('checkbox');
    expect(ref('I.v.history___dm')['@Mandatory']).toBe('Yes');
    expect(def('I.v.history')).toBeUndefined();
    const orders = main.ItemRef.map((r: Record<string, string>) => Number(r['@OrderNumber']));
    expect(orders).toEqual(orders.map((_: number, i: number) => i + 1));
  });

  it('every skip rule is a ConditionDef: trig, trigex and the addition box, on the items they hide', () => {
    expect(condition(ref('I.v.dm_years')['@CollectionExceptionConditionOID'])).toBe('not (I.v.history == "dm")');
    expect(condition(ref('I.v.lmp')['@CollectionExceptionConditionOID'])).toBe('not (I.v.sex == "2")');
    expect(condition(ref('I.v.history_addition')['@CollectionExceptionConditionOID'])).toBe(
      'not (I.v.history == "other")',
    );
    expect(def('I.v.history_addition').Question.TranslatedText['#text']).toBe('既往史（请注明）');
    expect(def('I.v.seen_at')['@DataType']).toBe('datetime');
    expect(def('I.v.lmp')['@DataType']).toBe('incompleteDate');
    expect(def('I.v.dose_time')['@DataType']).toBe('time');
  });

  it('reads back exactly, and files of earlier versions (our attributes instead of Alias elements) still import', () => {
    expect(importOdm(exportOdm([visit], { now: NOW }))).toMatchObject({ issues: [], definitions: [visit] });
    const earlier = `<?xml version="1.0" encoding="UTF-8"?>
<ODM xmlns="http://www.cdisc.org/ns/odm/v1.3" xmlns:ecrf="urn:ecrf:crf-definition:1" ODMVersion="1.3.2" FileType="Snapshot" FileOID="X" CreationDateTime="2024-01-01T00:00:00Z">
<Study OID="S"><GlobalVariables><StudyName>s</StudyName><StudyDescription>s</StudyDescription><ProtocolName>s</ProtocolName></GlobalVariables>
<MetaDataVersion OID="MDV.1" Name="s">
<FormDef OID="F.v" Name="访视" Repeating="No" ecrf:CrfId="v" ecrf:CrfOption="{}"><ItemGroupRef ItemGroupOID="IG.v.MAIN" Mandatory="No"/></FormDef>
<ItemGroupDef OID="IG.v.MAIN" Name="访视" Repeating="No" ecrf:CrfType="root"><ItemRef ItemOID="I.v.history" Mandatory="No" OrderNumber="1"/></ItemGroupDef>
<ItemDef OID="I.v.history" Name="history" DataType="text" ecrf:CrfType="checkbox" ecrf:CrfName="history" ecrf:CrfOption="{&quot;optionsValue&quot;:&quot;a,b&quot;,&quot;optionsText&quot;:&quot;A,B&quot;}"><Question><TranslatedText xml:lang="zh-CN">既往史</TranslatedText></Question></ItemDef>
</MetaDataVersion></Study></ODM>`;
    expect(importOdm(earlier)).toMatchObject({
      issues: [],
      definitions: [
        {
          id: 'v',
          title: '访视',
          children: [
            { type: 'checkbox', name: 'history', title: '既往史', option: { optionsValue: 'a,b', optionsText: 'A,B' } },
          ],
        },
      ],
    });
  });
});
