import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import type { AuditEvent, SubjectRecordRow } from '../../../../api/subject.api';
import { renderWithProviders } from '../../../../test/render';
import { actionLabel, operateChange, operateItem, type OperateContext } from '../operate-labels';
import { OperatesDrawer } from './operates-drawer';

const api = vi.hoisted(() => ({ operates: vi.fn() }));
vi.mock('../../../../api/subject.api', async (importOriginal) => ({
  ...(await importOriginal<object>()),
  subjectRecordApi: api,
}));

afterEach(() => {
  cleanup();
  vi.clearAllMocks();
});

const context: OperateContext = {
  fieldLabels: {
    identificationCode: '编号',
    subjectName: '患者姓名',
    gender: '性别',
    mobile: '手机号',
    diseaseCode: '病种',
    birth: '出生日期',
    idNumber: '身份证号',
  },
  diseases: [
    { id: 1, diseaseName: '腰椎管狭窄症', diseaseCode: 'LSS' },
    { id: 2, diseaseName: '腰椎滑脱症', diseaseCode: 'LDS' },
  ],
  crfTitles: new Map([[9, '人口学资料']]),
};

let nextId = 1;
function event(patch: Partial<AuditEvent>): AuditEvent {
  return {
    id: nextId++,
    action: 'subject.update',
    subjectRecordId: 77,
    crfDataRecordId: null,
    crfId: null,
    crfVersion: null,
    itemName: null,
    oldValue: null,
    newValue: null,
    reason: null,
    userName: '系统管理员(13800000000)',
    createTime: '2026-03-02T01:02:03Z',
    ...patch,
  };
}

describe('operates labels', () => {
  it.each([
    ['subject.create', '添加患者'],
    ['subject.update', '修改患者信息'],
    ['subject.state', '修改状态'],
    ['subject.delete', '删除患者'],
    ['subject.restore', '恢复患者'],
    ['subject.sign', '电子签名'],
    ['subject.sign_invalidated', '签名失效'],
    ['crf.create', '新建表单'],
    ['item.update', '修改数据'],
    ['crf.submit', '提交表单'],
    ['crf.delete', '删除表单记录'],
    ['sdv.verify', 'SDV核查'],
    ['sdv.unverify', '取消SDV核查'],
    ['sdv.clear', 'SDV核查失效'],
    ['doubt.open', 'doubt.open'],
  ])('SUBJ-28: %s reads %s', (action, label) => {
    expect(actionLabel(action)).toBe(label);
  });

  it('names the field or form a row touched and shows old → new in words', () => {
    const gender = event({ itemName: 'gender', oldValue: 0, newValue: 1 });
    expect(operateItem(gender, context)).toBe('性别');
    expect(operateChange(gender, context)).toBe('女 → 男');
    const disease = event({ itemName: 'diseaseCode', oldValue: 'LSS', newValue: 'LDS' });
    expect(operateChange(disease, context)).toBe('腰椎管狭窄症 → 腰椎滑脱症');
    const mobile = event({ itemName: 'mobile', oldValue: null, newValue: '13912345678' });
    expect(operateChange(mobile, context)).toBe('（空） → 13912345678');
    const state = event({ action: 'subject.state', itemName: 'state', oldValue: 0, newValue: 2, reason: '失访' });
    expect(operateItem(state, context)).toBe('状态');
    expect(operateChange(state, context)).toBe('在组 → 退出');
    const item = event({ action: 'item.update', crfId: 9, itemName: 'weight', oldValue: '70', newValue: '72.5' });
    expect(operateItem(item, context)).toBe('人口学资料 / weight');
    expect(operateChange(item, context)).toBe('70 → 72.5');
    expect(operateItem(event({ action: 'crf.submit', crfId: 12 }), context)).toBe('表单 #12');
    expect(operateChange(event({ action: 'subject.delete', reason: '重复录入' }), context)).toBe('');
    const created = event({
      action: 'subject.create',
      newValue: { identificationCode: 'LSS-0001', subjectName: '张三', gender: 1, diseaseCode: 'LSS', mobile: null },
    });
    expect(operateChange(created, context)).toBe('编号：LSS-0001；患者姓名：张三；性别：男；病种：腰椎管狭窄症');
    // Identifiers arrive as the server answers them: masked in the trail (mobile, ID number) or for the caller.
    const withIds = event({
      action: 'subject.create',
      newValue: {
        identificationCode: 'LSS-0002',
        subjectName: '李*',
        gender: 0,
        diseaseCode: 'LSS',
        mobile: '139****5678',
        idNumber: '110105********002X',
      },
    });
    expect(operateChange(withIds, context)).toBe(
      '编号：LSS-0002；患者姓名：李*；性别：女；手机号：139****5678；身份证号：110105********002X；病种：腰椎管狭窄症',
    );
  });
});

describe('operates drawer', () => {
  it('SUBJ-28: lists time, user, action in words, item, old → new and reason, newest first as the server sends', async () => {
    api.operates.mockResolvedValue({
      code: 200,
      msg: '',
      data: {
        total: 3,
        list: [
          event({ action: 'subject.delete', reason: '重复录入' }),
          event({ itemName: 'mobile', oldValue: '13912345678', newValue: '13700001111' }),
          event({
            action: 'subject.create',
            newValue: { identificationCode: 'LSS-0001', subjectName: '张三', gender: 1, diseaseCode: 'LSS' },
          }),
        ],
      },
    });
    const record = { subjectRecordId: 77, subjectName: '张三', identificationCode: 'LSS-0001' } as SubjectRecordRow;
    renderWithProviders(<OperatesDrawer record={record} context={context} onClose={() => undefined} />);
    expect(await screen.findByText('操作记录 · 张三（LSS-0001）')).toBeTruthy();
    await waitFor(() => expect(api.operates).toHaveBeenCalledWith({ pageNum: 1, pageSize: 10, subjectRecordId: 77 }));
    const rows = await screen.findAllByRole('row');
    const body = rows.slice(1).map((row) =>
      within(row)
        .getAllByRole('cell')
        .map((cell) => cell.textContent),
    );
    expect(body[0]).toEqual(expect.arrayContaining(['删除患者', '重复录入', '系统管理员(13800000000)']));
    expect(body[1]).toEqual(expect.arrayContaining(['修改患者信息', '手机号', '13912345678 → 13700001111']));
    expect(body[2]).toEqual(
      expect.arrayContaining(['添加患者', '编号：LSS-0001；患者姓名：张三；性别：男；病种：腰椎管狭窄症']),
    );
    expect(screen.getByText('共 3 条')).toBeTruthy();
  });
});
