import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import type { AuditEvent, SubjectRecordRow } from '../../../../api/subject.api';
import { renderWithProviders } from '../../../../test/render';
import { operateItem } from '../operate-labels';
import { OperatesDrawer } from './operates-drawer';

const api = vi.hoisted(() => ({ operates: vi.fn() }));
const crf = vi.hoisted(() => ({ exportAudit: vi.fn() }));
vi.mock('../../../../api/subject.api', async (importOriginal) => ({
  ...(await importOriginal<object>()),
  subjectRecordApi: api,
}));
vi.mock('../../../../api/crf.api', async (importOriginal) => ({
  ...(await importOriginal<object>()),
  crfRecordApi: crf,
}));

afterEach(() => {
  cleanup();
  vi.clearAllMocks();
});

const KEY = 'c'.repeat(32);
let nextId = 1;
/** A row as the server answers it: raw codes and the words core's describeAuditRow gave them. */
function event(patch: Partial<AuditEvent>): AuditEvent {
  return {
    id: nextId++,
    action: 'subject.update',
    actionName: '修改患者信息',
    subjectRecordId: 77,
    crfDataRecordId: null,
    crfId: null,
    crfTitle: null,
    crfVersion: null,
    itemName: null,
    itemTitle: '',
    oldValue: null,
    newValue: null,
    oldText: '',
    newText: '',
    oldFiles: [],
    newFiles: [],
    reason: null,
    userName: '系统管理员(13800000000)',
    createTime: '2026-03-02T01:02:03Z',
    ...patch,
  };
}

describe('operates labels', () => {
  it('names the form and the item by their titles, a patient field by its label', () => {
    expect(operateItem(event({ crfTitle: '实验室检查', itemTitle: '血红蛋白' }))).toBe('实验室检查 / 血红蛋白');
    expect(operateItem(event({ itemTitle: '手机号' }))).toBe('手机号');
    expect(operateItem(event({ crfTitle: '生命体征' }))).toBe('生命体征');
    expect(operateItem(event({}))).toBe('');
  });
});

describe('operates drawer', () => {
  it('SUBJ-28: lists time, user, the action in Chinese, the item title, old → new in words, files by name and the reason', async () => {
    api.operates.mockResolvedValue({
      code: 200,
      msg: '',
      data: {
        total: 4,
        list: [
          event({ action: 'subject.delete', actionName: '删除患者', reason: '重复录入' }),
          event({
            action: 'item.update',
            actionName: '保存',
            crfId: 3,
            crfTitle: '实验室检查',
            itemName: 'hb',
            itemTitle: '血红蛋白',
            oldValue: 130,
            newValue: 13.5,
            oldText: '130 g/L',
            newText: '13.5 g/dL',
          }),
          event({
            action: 'item.update',
            actionName: '保存',
            crfTitle: '实验室检查',
            itemName: 'lab_report',
            itemTitle: '化验单',
            newValue: KEY,
            newText: '血常规.pdf',
            newFiles: [{ fileKey: KEY, fileName: '血常规.pdf' }],
          }),
          event({
            action: 'doubt.open',
            actionName: '发起质疑',
            crfTitle: '实验室检查',
            itemName: 'hb',
            itemTitle: '血红蛋白',
            newText: '单位请核实',
          }),
        ],
      },
    });
    const record = { subjectRecordId: 77, subjectName: '张三', identificationCode: 'LSS-0001' } as SubjectRecordRow;
    renderWithProviders(<OperatesDrawer record={record} onClose={() => undefined} />);
    expect(await screen.findByText('操作记录 · 张三（LSS-0001）')).toBeTruthy();
    await waitFor(() => expect(api.operates).toHaveBeenCalledWith({ pageNum: 1, pageSize: 10, subjectRecordId: 77 }));
    const rows = await screen.findAllByRole('row');
    const body = rows.slice(1).map((row) =>
      within(row)
        .getAllByRole('cell')
        .map((cell) => cell.textContent),
    );
    expect(body[0]).toEqual(expect.arrayContaining(['删除患者', '重复录入', '系统管理员(13800000000)']));
    expect(body[1]).toEqual(expect.arrayContaining(['保存', '实验室检查 / 血红蛋白', '130 g/L → 13.5 g/dL']));
    expect(body[3]).toEqual(expect.arrayContaining(['发起质疑', '单位请核实']));
    expect(JSON.stringify(body)).not.toContain('item.update');
    const link = within(rows[3]!).getByRole('link', { name: /血常规\.pdf/ });
    expect(link.getAttribute('href')).toBe(`/api/v1/fileupload/downfile?fileKey=${KEY}`);
    expect(screen.getByText('共 4 条')).toBeTruthy();
  });

  it('导出 saves this patient’s trail as CSV', async () => {
    api.operates.mockResolvedValue({ code: 200, msg: '', data: { total: 0, list: [] } });
    crf.exportAudit.mockResolvedValue({ data: new Blob(['\uFEFF序号']), headers: {} });
    const createObjectURL = vi.fn(() => 'blob:x');
    Object.assign(URL, { createObjectURL, revokeObjectURL: vi.fn() });
    const record = { subjectRecordId: 77, subjectName: '张三', identificationCode: 'LSS-0001' } as SubjectRecordRow;
    renderWithProviders(<OperatesDrawer record={record} onClose={() => undefined} />);
    fireEvent.click(await screen.findByRole('button', { name: /导出/ }));
    await waitFor(() => expect(crf.exportAudit).toHaveBeenCalledWith({ subjectRecordId: 77 }));
    await waitFor(() => expect(createObjectURL).toHaveBeenCalled());
  });

  it('on a phone each row is a card: the action, who and when, the item and its change', async () => {
    const original = window.matchMedia;
    // A 390 px wide screen: only the xs breakpoint matches.
    window.matchMedia = ((query: string) => {
      const min = /min-width:\s*(\d+)/.exec(query);
      const max = /max-width:\s*(\d+)/.exec(query);
      const matches = (!min || Number(min[1]) <= 390) && (!max || Number(max[1]) >= 390);
      return {
        matches,
        media: query,
        onchange: null,
        addListener: () => undefined,
        removeListener: () => undefined,
        addEventListener: () => undefined,
        removeEventListener: () => undefined,
        dispatchEvent: () => false,
      };
    }) as typeof window.matchMedia;
    try {
      api.operates.mockResolvedValue({
        code: 200,
        msg: '',
        data: {
          total: 1,
          list: [
            event({
              action: 'item.update',
              actionName: '保存',
              crfTitle: '实验室检查',
              itemTitle: '血红蛋白',
              oldText: '130 g/L',
              newText: '13.5 g/dL',
              reason: '单位录错',
            }),
          ],
        },
      });
      const record = { subjectRecordId: 77, subjectName: '张三', identificationCode: 'LSS-0001' } as SubjectRecordRow;
      renderWithProviders(<OperatesDrawer record={record} onClose={() => undefined} />);
      const card = await waitFor(() => {
        const found = document.querySelector('.audit-card');
        if (!found) throw new Error('no card yet');
        return found as HTMLElement;
      });
      expect(card.textContent).toContain('保存');
      expect(card.textContent).toContain('实验室检查 / 血红蛋白');
      expect(card.textContent).toContain('130 g/L → 13.5 g/dL');
      expect(card.textContent).toContain('原因：单位录错');
    } finally {
      window.matchMedia = original;
    }
  });
});
