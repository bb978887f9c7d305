import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import {
  ITEM_TYPES,
  type CrfDefinition,
  type CrfNode,
  type ItemOption,
  type ItemType,
} from '../crf-definition.schema.js';
import { itemTypeOf } from '../item-types/registry.js';
import { readChoiceList } from '../value-shapes.js';
import { checkDictionary, checkRecords } from '../test/redcap-rules.js';
import { exportRedcapDictionary } from './redcap-export.js';
import {
  isRedcapCheckbox,
  redcapCheckboxColumn,
  redcapChoiceCodes,
  redcapValue,
  toRedcapCode,
} from './redcap-values.js';

/**
 * Every item type that holds a value, with values it may store, written into a REDCap records file the way the
 * export writes them (redcapValue, REDCap's codes and checkbox columns) and judged with REDCap's own rules against
 * the dictionary the same definitions export to (docs/crf-format.md §9.3).
 */
const SAMPLES: Partial<Record<ItemType, Array<[ItemOption, unknown[]]>>> = {
  input: [
    [{}, ['文本, "引号"']],
    [{ validate: { type: 'phone' } }, ['13800000000']],
    [{ validate: { type: 'email' } }, ['a@b.cn']],
    [{ validate: { type: 'idcard' } }, ['11010519491231002X']],
  ],
  text: [[{}, ['text']]],
  textarea: [[{}, ['多行\n文本']]],
  int: [[{}, ['12', -3]]],
  real: [
    [{}, ['36.55']],
    [{ validate: { precision: 1 } }, ['36', '36.5', 37]],
    [{ validate: { precision: 2 } }, ['1.5']],
  ],
  number: [[{}, [1.25]]],
  slider: [[{ valueMin: 0, valueMax: 10 }, [0, 7]]],
  date: [
    [{}, ['2026-01-05', '2024-02-29']],
    [{ format: 'yyyy-MM' }, ['2026-01', '2026-UK']],
    [{ dateOrder: 'dmy' }, ['2026-01-05']],
    [{ itemType: 'datetime' }, ['2026-01-05 08:30:00']],
  ],
  datetime: [
    [{}, ['2026-01-05 08:30:00']],
    [{ format: 'yyyy-MM-dd HH:mm' }, ['2026-01-05 08:30']],
  ],
  partialDate: [
    [{}, ['2020-UK-UK', '2020-05-UK']],
    [{ format: 'yyyy-MM' }, ['2020-05']],
  ],
  time: [
    [{}, ['08:30:00']],
    [{ format: 'Hour' }, ['08:30']],
  ],
  radio: [
    [{ optionsValue: '1,2', optionsText: '男,女' }, ['1']],
    [{ optionsValue: '1,0', optionsText: '是,否' }, ['0']],
  ],
  select: [[{ optionsValue: 'L1/2,L2/3', optionsText: 'L1/2,L2/3' }, ['L2/3']]],
  checkbox: [[{ optionsValue: 'L1/2,L2/3,-1', optionsText: 'L1/2,L2/3,不详' }, [['L1/2', '-1']]]],
  multiSelect: [[{ optionsValue: 'a,A,1.5', optionsText: 'a,A,1.5' }, [['A', '1.5']]]],
  fileUpload: [[{}, []]],
  imageUpload: [[{}, []]],
  videoUpload: [[{}, []]],
  spineCobb: [[{}, ['{"pt":12}']]],
  spineMeasure: [[{}, ['{"TK":30}']]],
};

function sampleForm() {
  const children: CrfNode[] = [{ name: 'record_id', title: 'Record ID', type: 'input', option: {}, children: [] }];
  const values: Array<[CrfNode, unknown]> = [];
  for (const type of ITEM_TYPES) {
    if (itemTypeOf(type).role !== 'value') continue;
    const samples = SAMPLES[type];
    if (!samples) throw new Error(`no REDCap sample for item type ${type}: add one`);
    samples.forEach(([option, stored], i) => {
      const node: CrfNode = { name: `${type}_${i + 1}`.toLowerCase(), title: type, type, option, children: [] };
      children.push(node);
      for (const value of stored) values.push([node, value]);
    });
  }
  const definition: CrfDefinition = { id: 'all_types', title: 'all types', option: {}, children };
  return { definition, values };
}

/** One record row per stored value, written as the records export does. */
function recordsCsv(values: Array<[CrfNode, unknown]>, validationOf: (name: string) => string) {
  const columns = ['record_id'];
  const nodes = [...new Map(values.map(([node]) => [node.name, node])).values()];
  for (const node of nodes) {
    if (isRedcapCheckbox(node)) {
      columns.push(...redcapChoiceCodes(node).map((c) => redcapCheckboxColumn(node.name, c.redcap)));
    } else columns.push(node.name);
  }
  const data = values.map(([node, value], i) => {
    const row: Record<string, string> = { record_id: `R${i + 1}` };
    if (isRedcapCheckbox(node)) {
      const chosen = readChoiceList(value);
      for (const c of redcapChoiceCodes(node)) {
        row[redcapCheckboxColumn(node.name, c.redcap)] = chosen.includes(c.code) ? '1' : '0';
      }
    } else if (node.option.optionsValue) row[node.name] = toRedcapCode(node, String(value));
    else row[node.name] = redcapValue(validationOf(node.name), String(value));
    return row;
  });
  return Papa.unparse({ fields: columns, data: data.map((row) => columns.map((c) => row[c] ?? '')) });
}

describe("REDCap's rules", () => {
  it('every item type exports to a dictionary REDCap takes', () => {
    const { definition } = sampleForm();
    expect(checkDictionary(exportRedcapDictionary([definition]).csv)).toEqual([]);
  });

  it('every value an item type may hold is written so that REDCap takes it for the field it exported as', () => {
    const { definition, values } = sampleForm();
    const dictionary = exportRedcapDictionary([definition]);
    const validation = new Map(dictionary.rows.map((r) => [r.variable, r.validation]));
    const csv = recordsCsv(values, (name) => validation.get(name) ?? '');
    expect(checkRecords(csv, dictionary.csv)).toEqual([]);
  });

  it('names REDCap keeps for itself are renamed', () => {
    const item = (name: string): CrfNode => ({ name, title: name, type: 'input', option: {}, children: [] });
    const { csv, rows } = exportRedcapDictionary([
      {
        id: 'target',
        title: 'target',
        option: {},
        children: ['record_id', 'target', 'class', 'redcap_x', 'x_complete', 'a__b'].map(item),
      },
    ]);
    expect(checkDictionary(csv)).toEqual([]);
    expect(rows.map((r) => r.variable)).toEqual([
      'record_id',
      'target_v',
      'class_v',
      'v_redcap_x',
      'x_complete_v',
      'a_b',
    ]);
  });

  it('the checker refuses what REDCap refuses', () => {
    const dictionary = [
      '"Variable / Field Name","Form Name","Section Header","Field Type","Field Label","Choices, Calculations, OR Slider Labels","Field Note","Text Validation Type OR Show Slider Number","Text Validation Min","Text Validation Max","Identifier?","Branching Logic (Show field only if...)","Required Field?","Custom Alignment","Question Number (surveys only)","Matrix Group Name","Matrix Ranking?","Field Annotation"',
      '"record_id","f","","text","ID","","","","","","","","","","","","",""',
      '"lv","f","","checkbox","节段","L1/2, L1/2 | 2, b","","","","","","","","","","","",""',
      '"tel","f","","text","电话","","","phone","","","","","","","","","",""',
      '"d","f","","text","日期","","","date_ymd","","","","","","","","","",""',
      '"w","f","","text","体重","","","number_1dp","","","","","","","","","",""',
      '"target","f","","text","x","","","","","","","","","","","","",""',
    ].join('\n');
    expect(checkDictionary(dictionary)).toEqual([
      '第 3 行 lv：选项代码 L1/2 含有 REDCap 不接受的字符',
      '第 7 行 target：变量名是 REDCap 的保留名',
    ]);
    const records = ['record_id,tel,d,w,lv___2,x', '1,13800000000,2020-05,36,2,', ',,2026-01-05,,,'].join('\n');
    expect(checkRecords(records, dictionary, { events: ['baseline_arm_1'] })).toEqual([
      '纵向项目的数据缺少 redcap_event_name 列',
      '列 x 在数据字典中不存在',
      '第 2 行 redcap_event_name=""：不是项目的事件',
      '第 2 行 tel="13800000000"：不符合 phone 校验',
      '第 2 行 d="2020-05"：不符合 date_ymd 校验',
      '第 2 行 w="36"：不符合 number_1dp 校验',
      '第 2 行 lv___2="2"：复选框只能是 0 或 1',
      '第 3 行 record_id=""：记录标识为空',
      '第 3 行 redcap_event_name=""：不是项目的事件',
    ]);
  });
});
