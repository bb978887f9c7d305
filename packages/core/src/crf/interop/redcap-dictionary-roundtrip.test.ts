import { describe, expect, it } from 'vitest';
import type { CrfDefinition, CrfNode, ItemOption, ItemType } from '../crf-definition.schema.js';
import { formatImportIssue } from './import-result.js';
import { exportRedcapDictionary } from './redcap-export.js';
import { importRedcapDictionary, REDCAP_COLUMNS } from './redcap.js';

const node = (
  type: ItemType,
  name: string,
  title: string,
  option: ItemOption = {},
  children: CrfNode[] = [],
): CrfNode => ({ name, title, type, option, children });

/** Export, then import what was exported: the definitions and the import's findings as text. */
function roundTrip(definitions: CrfDefinition[], recordId?: string) {
  const exported = exportRedcapDictionary(definitions, recordId ? { recordId } : {});
  const imported = importRedcapDictionary(exported.csv);
  return { exported, imported, issues: imported.issues.map(formatImportIssue) };
}

const dictionary = (...rows: string[][]) =>
  [REDCAP_COLUMNS, ...rows.map((r) => [...r, ...Array<string>(18 - r.length).fill('')])]
    .map((r) => r.map((c) => `"${c}"`).join(','))
    .join('\r\n');

describe('REDCap data dictionary: what a study-wide export brings back', () => {
  it("names a CRF's form after its id when its title is Chinese, and reads the title back from the annotation", () => {
    const { exported, imported } = roundTrip([
      {
        id: 12,
        title: '人口学资料',
        option: {},
        children: [node('input', 'code', '编号'), node('int', 'age', '年龄')],
      },
      { id: 13, title: '生命体征', option: {}, children: [node('int', 'sbp', '收缩压')] },
    ]);
    expect(exported.rows.map((r) => [r.form, r.variable])).toEqual([
      ['crf_12', 'code'],
      ['crf_12', 'age'],
      ['crf_13', 'sbp'],
    ]);
    expect(exported.rows[0]!.annotation).toBe("@ECRF-FORM='人口学资料'");
    expect(imported.ok).toBe(true);
    expect(imported.definitions.map((d) => [d.id, d.title])).toEqual([
      ['crf_12', '人口学资料'],
      ['crf_13', '生命体征'],
    ]);
    expect(imported.definitions[0]!.children.map((c) => c.option)).toEqual([{}, {}]);
  });

  it('puts a list group or table written as a form of its own back into its form, after the field it followed', () => {
    const implants = node('listGroup', 'implants', '植入物', {}, [
      node('input', 'implant_name', '名称'),
      node('int', 'implant_qty', '数量'),
    ]);
    const labs = node('table', 'other_labs', '其他检验', {}, [node('input', 'lab_item', '检验项目')]);
    const { exported, imported, issues } = roundTrip([
      {
        id: 5,
        title: '手术记录',
        option: {},
        children: [
          node('input', 'op_id', '手术编号'),
          node('section', 'op', '手术信息', {}, [
            node('int', 'op_minutes', '时长'),
            implants,
            node('int', 'loss', '出血'),
          ]),
          labs,
        ],
      },
    ]);
    expect([...new Set(exported.rows.map((r) => r.form))]).toEqual(['crf_5', 'crf_5_implants', 'crf_5_other_labs']);
    expect(imported.ok).toBe(true);
    expect(imported.definitions).toHaveLength(1);
    const [form] = imported.definitions;
    expect(form!.title).toBe('手术记录');
    const section = form!.children.find((c) => c.type === 'section')!;
    expect(section.children.map((c) => [c.type, c.name])).toEqual([
      ['int', 'op_minutes'],
      ['listGroup', 'implants'],
      ['int', 'loss'],
      ['table', 'other_labs'],
    ]);
    const back = section.children[1]!;
    expect(back.title).toBe('植入物');
    expect(back.children.map((c) => [c.type, c.name, c.title])).toEqual([
      ['input', 'implant_name', '名称'],
      ['int', 'implant_qty', '数量'],
    ]);
    expect(issues).toEqual(
      expect.arrayContaining([
        '表单 crf_5_implants：表单 crf_5_implants 是表单 crf_5 的列表组“植入物”（本平台导出时拆出），已放回原表单',
      ]),
    );
  });

  it('keeps the order REDCap shows a date in: date_dmy stays date_dmy, datetime_mdy datetime_mdy', () => {
    const csv = dictionary(
      ['record_id', 'visit', '', 'text', 'Record ID'],
      ['dob', 'visit', '', 'text', 'Date of birth', '', '', 'date_dmy'],
      ['seen_at', 'visit', '', 'text', 'Seen', '', '', 'datetime_mdy'],
      ['drawn_at', 'visit', '', 'text', 'Drawn', '', '', 'datetime_seconds_dmy'],
    );
    const first = importRedcapDictionary(csv);
    expect(first.ok).toBe(true);
    const again = exportRedcapDictionary(first.definitions);
    expect(again.rows.map((r) => [r.variable, r.validation])).toEqual([
      ['record_id', ''],
      ['dob', 'date_dmy'],
      ['seen_at', 'datetime_mdy'],
      ['drawn_at', 'datetime_seconds_dmy'],
    ]);
    expect(importRedcapDictionary(again.csv).definitions).toEqual(first.definitions);
  });

  it("takes a project's own record_id as the record ID: nothing is put ahead of it, nor is it renamed", () => {
    const csv = dictionary(['record_id', 'baseline', '', 'text', 'Record ID'], ['age', 'baseline', '', 'text', 'Age']);
    const { definitions } = importRedcapDictionary(csv);
    const api = exportRedcapDictionary(definitions, { recordId: 'record_id' });
    expect(api.rows.map((r) => r.variable)).toEqual(['record_id', 'age']);
    expect(api.recordId).toBe('record_id');
    // A first field that is not one (a radio) still gets a record ID ahead of it, and an item of that name is renamed.
    const other = exportRedcapDictionary(
      [
        {
          id: 'f',
          title: 'f',
          option: {},
          children: [
            node('radio', 'record_id', '性别', { optionsValue: '1,2', optionsText: '男,女' }),
            node('int', 'age', '年龄'),
          ],
        },
      ],
      { recordId: 'record_id' },
    );
    expect(other.rows.map((r) => r.variable)).toEqual(['record_id', 'record_id_2', 'age']);
  });

  it('a mobile number is plain text with a note in REDCap and the mainland rule again when imported back', () => {
    const phone = node('input', 'phone', '联系电话', { validate: { type: 'phone' }, description: '本人手机' });
    const { exported, imported, issues } = roundTrip([
      { id: 'f', title: 'f', option: {}, children: [node('input', 'record_id', 'Record ID'), phone] },
    ]);
    expect(exported.rows[1]).toMatchObject({ validation: '', note: '本人手机；中国大陆手机号（11位）' });
    expect(issues).toEqual([]);
    expect(imported.definitions[0]!.children[1]).toEqual(phone);
  });
});
