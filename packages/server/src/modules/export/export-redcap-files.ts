// The files beside the REDCap records in the data export's zip: what a REDCap project needs to take them.
import { TEST_EXPORT_NOTICE } from '@ecrf/core';
import { REDCAP_COLUMNS, REDCAP_FIELD_KEYS, redcapChoiceCodes } from '@ecrf/core/interop';
import { RECORD_ID, type Field, type Project } from '../redcap/redcap-project.js';
import { BOM, csvLine } from './export-writer-common.js';

const csvFile = (header: readonly string[], rows: ReadonlyArray<readonly string[]>) =>
  BOM + csvLine(header) + rows.map((r) => csvLine(r)).join('');

/** A value the records file leaves out because REDCap would refuse it for its field. */
export interface LeftOut {
  record: string;
  event: string;
  instrument: string;
  instance: string;
  variable: string;
  value: string;
  validation: string;
}

export interface RedcapFiles {
  project: Project;
  /** The fields the records file has (the record ID among them). */
  fields: readonly Field[];
  /** The forms whose data is in the file. */
  forms: ReadonlySet<string>;
  leftOut: readonly LeftOut[];
  /** Choice labels were asked for: the file has codes all the same. */
  labelsAsked: boolean;
  /**
   * The study is in 测试: the README says 测试数据 first (records.csv and the dictionary are read by REDCap's import
   * and PyCap, which a first row would break; the zip's name says it too).
   */
  test?: boolean;
}

/** The data dictionary of the exported fields, as REDCap's dictionary upload reads it. */
function dictionary(fields: readonly Field[]): string {
  return csvFile(
    REDCAP_COLUMNS,
    fields.map((f) => REDCAP_FIELD_KEYS.map((k) => f.row[k])),
  );
}

/** Choice codes REDCap would refuse, and the codes the files use for them. */
function choiceCodes(fields: readonly Field[]): string[][] {
  return fields.flatMap((f) =>
    f.node && f.node.option.optionsValue
      ? redcapChoiceCodes(f.node)
          .filter((c) => c.redcap !== c.code)
          .map((c) => [f.row.variable, f.node!.title, c.code, c.redcap, c.text])
      : [],
  );
}

function readme(files: RedcapFiles, names: readonly string[]): string {
  const { project } = files;
  const steps = [
    '项目设置（Project Setup）→ 上传数据字典 data_dictionary.csv（Data Dictionary）。表单标签（Instrument label）可在 REDCap 中改为本平台的表单标题。',
  ];
  if (project.longitudinal) {
    steps.push(
      '启用纵向（longitudinal）；定义事件（Define My Events）→ 上传 events.csv，再上传 instrument_event_mapping.csv（Designate Instruments for My Events）。',
    );
  }
  if (names.includes('repeating_instruments.csv')) {
    steps.push(
      '启用重复表单（Repeating instruments），设置 repeating_instruments.csv 中的表单（或用 API content=repeatingFormsEvents 导入该文件）。',
    );
  }
  steps.push('数据导入工具（Data Import Tool）→ 导入 records.csv，日期格式选 YYYY-MM-DD。');
  const notes = ['选项值是选项编码（REDCap 导入不接受标签），标签在数据字典中。'];
  if (files.labelsAsked) notes.push('导出时选择了“标签”：REDCap 导入格式只能使用编码，已按编码导出。');
  if (names.includes('choice_codes.csv')) {
    notes.push(
      'REDCap 的选项编码只能用字母、数字、下划线、点和减号：choice_codes.csv 列出改写的编码与本平台的原编码。',
    );
  }
  if (files.leftOut.length > 0) {
    notes.push(
      `${files.leftOut.length} 个值不符合 REDCap 对该字段的校验，未写入 records.csv，列在 values_left_out.csv 中。`,
    );
  }
  const lines = [
    ...(files.test ? [TEST_EXPORT_NOTICE, ''] : []),
    `REDCap 导入文件：${project.title}`,
    '',
    '在 REDCap 中依次：',
    ...steps.map((step, i) => `${i + 1}. ${step}`),
    '',
    '说明：',
    ...notes.map((note) => `- ${note}`),
  ];
  return `${BOM}${lines.join('\r\n')}\r\n`;
}

/** The zip's files other than the records, by name: always the dictionary and a readme, the rest when they apply. */
export function redcapSideFiles(files: RedcapFiles): Array<{ name: string; text: string }> {
  const { project, fields, forms } = files;
  const out = [{ name: 'data_dictionary.csv', text: dictionary(fields) }];
  const instruments = project.instruments.filter((i) => forms.has(i.form));
  if (project.longitudinal) {
    const events = project.events.filter((e) => instruments.some((i) => i.event === e.name));
    out.push({
      name: 'events.csv',
      text: csvFile(
        ['event_name', 'arm_num', 'unique_event_name', 'custom_event_label'],
        events.map((e) => [e.label, '1', e.name, '']),
      ),
    });
    out.push({
      name: 'instrument_event_mapping.csv',
      text: csvFile(
        ['arm_num', 'unique_event_name', 'form'],
        instruments.map((i) => ['1', i.event ?? '', i.form]),
      ),
    });
  }
  const repeating = instruments.filter((i) => i.repeating || i.rows);
  if (repeating.length > 0) {
    const header = project.longitudinal
      ? ['event_name', 'form_name', 'custom_form_label']
      : ['form_name', 'custom_form_label'];
    out.push({
      name: 'repeating_instruments.csv',
      text: csvFile(
        header,
        repeating.map((i) => (project.longitudinal ? [i.event ?? '', i.form, ''] : [i.form, ''])),
      ),
    });
  }
  const codes = choiceCodes(fields);
  if (codes.length > 0) {
    out.push({
      name: 'choice_codes.csv',
      text: csvFile(['variable', 'field_label', 'code', 'redcap_code', 'choice_label'], codes),
    });
  }
  if (files.leftOut.length > 0) {
    out.push({
      name: 'values_left_out.csv',
      text: csvFile(
        [
          RECORD_ID,
          'redcap_event_name',
          'redcap_repeat_instrument',
          'redcap_repeat_instance',
          'variable',
          'value',
          'validation',
        ],
        files.leftOut.map((l) => [l.record, l.event, l.instrument, l.instance, l.variable, l.value, l.validation]),
      ),
    });
  }
  out.push({
    name: 'README.txt',
    text: readme(
      files,
      out.map((f) => f.name),
    ),
  });
  return out;
}
