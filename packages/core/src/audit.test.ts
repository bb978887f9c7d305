import { describe, expect, it } from 'vitest';
import { auditActionName, describeAuditRow, plainText } from './audit.js';
import type { CrfDefinition } from './crf/crf-definition.schema.js';
import { fileLabel, fileValuesOf, nodesByName, storedFileKey, unitOf, valueText } from './crf/record-values.js';
import { item } from './crf/test/fixtures.js';

const KEY_A = 'a'.repeat(32);
const KEY_B = 'b'.repeat(32);

const definition: CrfDefinition = {
  id: 'v',
  title: '生命体征',
  option: {},
  children: [
    item('radio', 'sex', '性别', { optionsValue: '1,2', optionsText: '男,女' }),
    item('checkbox', 'symptoms', '症状', {
      optionsValue: 'a,b,c',
      optionsText: '腰痛,下肢麻木,间歇性跛行',
      addition: '其他',
      additionIndex: '2',
    }),
    item('int', 'sbp', '收缩压', { units: 'mmHg' }),
    item('real', 'glucose', '血糖', { units: 'mmol/L,mg/dL' }),
    item('imageUpload', 'xray', 'X线片'),
    item('fileUpload', 'report', '检查报告'),
    item('listGroup', 'meds', '合并用药', {}, [
      item('input', 'drug', '药名'),
      item('real', 'dose', '剂量', { units: 'mg' }),
      item('fileUpload', 'rx', '处方'),
    ]),
  ],
};
const nodes = nodesByName(definition);
const fileNames = new Map([
  [KEY_A, '术前正位片.jpg'],
  [KEY_B, '血常规.pdf'],
]);

describe('audit action names', () => {
  it.each([
    ['item.update', '保存'],
    ['crf.submit', '提交'],
    ['doubt.open', '发起质疑'],
    ['doubt.reply', '回复质疑'],
    ['doubt.close', '关闭质疑'],
    ['doubt.system_open', '系统发起质疑'],
    ['doubt.system_close', '系统关闭质疑'],
    ['subject.sign', '签名'],
    ['sdv.verify', 'SDV'],
    ['sdv.unverify', '取消SDV'],
    ['crf.delete', '删除记录'],
    ['study.crf.upload', '上传CRF'],
  ])('%s reads %s', (code, name) => {
    expect(auditActionName(code)).toBe(name);
  });

  it('a code this version does not know keeps its code', () => {
    expect(auditActionName('future.thing')).toBe('future.thing');
  });
});

describe('describeAuditRow: the trail in words', () => {
  it('an item change reads with the item title, choice labels and units, not names and codes', () => {
    expect(
      describeAuditRow({ action: 'item.update', itemName: 'sbp', oldValue: '120', newValue: '130' }, { nodes }),
    ).toEqual({ actionName: '保存', itemTitle: '收缩压', oldText: '120 mmHg', newText: '130 mmHg' });
    expect(
      describeAuditRow({ action: 'item.update', itemName: 'sex', oldValue: null, newValue: '1' }, { nodes }),
    ).toEqual({ actionName: '保存', itemTitle: '性别', oldText: '', newText: '男' });
  });

  it('a checkbox list reads as its labels, with the addition text of the time', () => {
    const text = describeAuditRow(
      { action: 'item.update', itemName: 'symptoms', oldValue: ['a'], newValue: ['a', 'c'] },
      { nodes, before: {}, after: { symptoms_addition: '夜间痛' } },
    );
    expect(text.oldText).toBe('腰痛');
    expect(text.newText).toBe('腰痛、间歇性跛行（夜间痛）');
  });

  it('a value of an item with several units reads in the unit chosen at the time, before and after', () => {
    const text = describeAuditRow(
      { action: 'item.update', itemName: 'glucose', oldValue: '5.6', newValue: '101' },
      { nodes, before: { glucose_unit: 'mmol/L' }, after: { glucose_unit: 'mg/dL' } },
    );
    expect([text.oldText, text.newText]).toEqual(['5.6 mmol/L', '101 mg/dL']);
    expect(
      describeAuditRow(
        { action: 'item.update', itemName: 'glucose_unit', oldValue: 'mmol/L', newValue: 'mg/dL' },
        {
          nodes,
        },
      ).itemTitle,
    ).toBe('血糖（单位）');
  });

  it('uploads read as their original file names (with remarks), rows cell by cell', () => {
    const images = JSON.stringify([
      { uploadTime: '2026-03-01 10:00:00', remarks: '术前', dialogImgUrl: KEY_A },
      { uploadTime: '2026-03-01 10:01:00', remarks: '', dialogImgUrl: 'https://cdn.example.com/images/1/侧位.png' },
    ]);
    const ctx = { nodes, fileNames };
    expect(
      describeAuditRow({ action: 'item.update', itemName: 'xray', oldValue: null, newValue: images }, ctx).newText,
    ).toBe('术前正位片.jpg（术前）、侧位.png');
    expect(
      describeAuditRow({ action: 'item.update', itemName: 'report', oldValue: KEY_B, newValue: null }, ctx),
    ).toEqual({
      actionName: '保存',
      itemTitle: '检查报告',
      oldText: '血常规.pdf',
      newText: '',
    });
    const rows = [{ drug: '塞来昔布', dose: '200', rx: KEY_B }];
    expect(
      describeAuditRow({ action: 'item.update', itemName: 'meds', oldValue: null, newValue: rows }, ctx).newText,
    ).toBe('第 1 行 药名：塞来昔布，剂量：200 mg，处方：血常规.pdf');
  });

  it('without file names a stored key is never shown as a name it is not', () => {
    expect(fileLabel(KEY_A)).toBe(KEY_A);
    expect(fileLabel(KEY_A, fileNames)).toBe('术前正位片.jpg');
    expect(fileLabel(`/api/v1/fileupload/downfile?fileKey=${KEY_A}`, fileNames)).toBe('术前正位片.jpg');
    expect(storedFileKey(`/api/v1/fileupload/downfile?fileKey=${KEY_B}`)).toBe(KEY_B);
    expect(storedFileKey('https://cdn.example.com/a/b.png')).toBeNull();
    expect(valueText(nodes.get('xray'), JSON.stringify([{ dialogImgUrl: KEY_A }]))).toBe('1 张图片');
  });

  it('UPL-12: an object address (external mode) is named when the names hold the address, else by its last segment', () => {
    const address = '/api/v1/fileupload/object/images/1795334400000/胸片_正位.png';
    expect(fileLabel(address)).toBe('胸片_正位.png');
    expect(fileLabel(address, new Map([[address, '胸片 正位.png']]))).toBe('胸片 正位.png');
    expect(
      valueText(
        nodes.get('xray'),
        JSON.stringify([{ dialogImgUrl: address }]),
        {},
        {
          fileNames: new Map([[address, '胸片 正位.png']]),
        },
      ),
    ).toBe('胸片 正位.png');
  });

  it('finds the files a value refers to, inside rows too', () => {
    expect(fileValuesOf(nodes.get('meds'), [{ rx: KEY_B }, { drug: 'x' }])).toEqual([KEY_B]);
    expect(fileValuesOf(nodes.get('xray'), JSON.stringify([{ dialogImgUrl: KEY_A }]))).toEqual([KEY_A]);
    expect(fileValuesOf(nodes.get('sbp'), '120')).toEqual([]);
  });

  it('the unit of an item: the chosen one, else the first; none for items that show no unit', () => {
    expect(unitOf(nodes.get('glucose'))).toBe('mmol/L');
    expect(unitOf(nodes.get('glucose'), { glucose_unit: 'mg/dL' })).toBe('mg/dL');
    expect(unitOf(nodes.get('sex'))).toBe('');
  });

  it('a deleted record reads as its items in words', () => {
    const text = describeAuditRow(
      {
        action: 'crf.delete',
        itemName: null,
        oldValue: { sbp: '120', sex: '2', glucose: '6', glucose_unit: 'mg/dL' },
        newValue: null,
      },
      { nodes },
    );
    expect(text).toEqual({
      actionName: '删除记录',
      itemTitle: '',
      oldText: '收缩压：120 mmHg；性别：女；血糖：6 mg/dL',
      newText: '',
    });
  });

  it('queries show their text; whole-form SDV reads 整表', () => {
    expect(
      describeAuditRow({ action: 'doubt.open', itemName: 'sbp', oldValue: null, newValue: '请核实' }, { nodes }),
    ).toEqual({
      actionName: '发起质疑',
      itemTitle: '收缩压',
      oldText: '',
      newText: '请核实',
    });
    expect(
      describeAuditRow(
        { action: 'doubt.system_open', itemName: 'sbp', oldValue: null, newValue: '收缩压高于参考范围，请核实' },
        { nodes },
      ),
    ).toEqual({ actionName: '系统发起质疑', itemTitle: '收缩压', oldText: '', newText: '收缩压高于参考范围，请核实' });
    expect(
      describeAuditRow({ action: 'sdv.verify', itemName: '__form__', oldValue: null, newValue: null }, { nodes })
        .itemTitle,
    ).toBe('整表');
  });

  it('patient rows use the study labels, 男/女, disease names and state names', () => {
    const ctx = { fieldLabels: { identificationCode: '受试者编号' }, diseaseNames: new Map([['LSS', '腰椎管狭窄症']]) };
    expect(describeAuditRow({ action: 'subject.update', itemName: 'gender', oldValue: 0, newValue: 1 }, ctx)).toEqual({
      actionName: '修改患者信息',
      itemTitle: '性别',
      oldText: '女',
      newText: '男',
    });
    expect(
      describeAuditRow(
        {
          action: 'subject.create',
          itemName: null,
          oldValue: null,
          newValue: { identificationCode: 'LSS-0001', gender: 1, diseaseCode: 'LSS', mobile: '' },
        },
        ctx,
      ).newText,
    ).toBe('受试者编号：LSS-0001；性别：男；病种：腰椎管狭窄症');
    expect(describeAuditRow({ action: 'subject.state', itemName: null, oldValue: 0, newValue: 2 }, ctx)).toMatchObject({
      itemTitle: '状态',
      oldText: '在组',
      newText: '退出',
    });
  });

  it('a move to another site reads 中心 old → new by the departments’ names, else by their ids', () => {
    const row = { action: 'subject.site', itemName: 'deptId', oldValue: 3, newValue: 4 };
    const siteNames = new Map([
      [3, '甲中心'],
      [4, '乙中心'],
    ]);
    expect(describeAuditRow(row, { siteNames })).toEqual({
      actionName: '转移中心',
      itemTitle: '中心',
      oldText: '甲中心',
      newText: '乙中心',
    });
    expect(describeAuditRow(row)).toMatchObject({ itemTitle: '中心', oldText: '3', newText: '4' });
    expect(describeAuditRow({ ...row, oldValue: null })).toMatchObject({ oldText: '', newText: '4' });
  });

  it('a lock or its release reads by what was locked (a site by its name); a reopened study as 已结束 → 进行中', () => {
    const lock = (scope: string, targetId: number) => ({
      action: 'lock.set',
      itemName: null,
      oldValue: null,
      newValue: { scope, targetId },
    });
    expect(describeAuditRow(lock('study', 0))).toEqual({
      actionName: '锁定',
      itemTitle: '数据库锁定',
      oldText: '',
      newText: '',
    });
    expect(describeAuditRow({ ...lock('record', 9), action: 'lock.release' })).toMatchObject({
      actionName: '解锁',
      itemTitle: '表单锁定',
    });
    expect(describeAuditRow(lock('site', 3), { siteNames: new Map([[3, '甲中心']]) })).toMatchObject({
      itemTitle: '中心锁定',
      newText: '甲中心',
    });
    expect(describeAuditRow({ action: 'study.reopen', itemName: null, oldValue: 1, newValue: 0 })).toEqual({
      actionName: '重新开启项目',
      itemTitle: '状态',
      oldText: '已结束',
      newText: '进行中',
    });
  });

  it('set-up rows without a definition read as their fields', () => {
    expect(plainText({ doubt: '1', diseases: [{ diseaseName: 'A' }] })).toBe('doubt：1；diseases：diseaseName：A');
    expect(describeAuditRow({ action: 'study.config', itemName: 'doubt', oldValue: '0', newValue: '1' })).toEqual({
      actionName: '修改项目设置',
      itemTitle: 'doubt',
      oldText: '0',
      newText: '1',
    });
  });
});
