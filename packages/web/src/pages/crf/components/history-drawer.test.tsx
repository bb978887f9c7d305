import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import type { CrfAuditRow } from '../../../api/crf.api';
import { renderWithProviders } from '../../../test/render';
import { HistoryDrawer } from './history-drawer';

const api = vi.hoisted(() => ({ audit: vi.fn(), exportAudit: vi.fn() }));
vi.mock('../../../api/crf.api', async (importOriginal) => ({
  ...(await importOriginal<object>()),
  crfRecordApi: api,
}));

afterEach(() => {
  cleanup();
  vi.clearAllMocks();
});

const OLD = 'd'.repeat(32);
const NEW = 'e'.repeat(32);
let nextId = 1;
function row(patch: Partial<CrfAuditRow>): CrfAuditRow {
  return {
    id: nextId++,
    action: 'item.update',
    actionName: '保存',
    itemName: 'hb',
    itemTitle: '血红蛋白',
    crfTitle: '实验室检查',
    oldValue: null,
    newValue: null,
    oldText: '',
    newText: '',
    oldFiles: [],
    newFiles: [],
    reason: null,
    userName: '李护士(13900000001)',
    createTime: '2026-03-02T01:02:03Z',
    crfVersion: 1,
    ...patch,
  };
}

describe('history drawer (操作记录 of a form)', () => {
  it('shows Chinese action names, item titles, values with labels and units, files by name, and exports', async () => {
    api.audit.mockResolvedValue({
      code: 200,
      msg: '',
      data: [
        row({ action: 'doubt.close', actionName: '关闭质疑', reason: '已核实无误' }),
        row({ oldValue: 130, newValue: 13.5, oldText: '130 g/L', newText: '13.5 g/dL', reason: '单位录错' }),
        row({
          itemName: 'lab_report',
          itemTitle: '化验单',
          oldValue: OLD,
          newValue: NEW,
          oldText: '血常规报告.pdf',
          newText: '血常规复查.pdf',
          oldFiles: [{ fileKey: OLD, fileName: '血常规报告.pdf' }],
          newFiles: [{ fileKey: NEW, fileName: '血常规复查.pdf' }],
        }),
        row({ itemName: 'comorbid', itemTitle: '合并症', newValue: ['htn', 'other'], newText: '高血压、其他（痛风）' }),
      ],
    });
    api.exportAudit.mockResolvedValue({ data: new Blob(['\uFEFF序号']), headers: {} });
    Object.assign(URL, { createObjectURL: vi.fn(() => 'blob:x'), revokeObjectURL: vi.fn() });
    renderWithProviders(
      <HistoryDrawer target={{ crfDataRecordId: 41, title: '实验室检查' }} onClose={() => undefined} />,
    );
    await screen.findByText('130 g/L');
    const rows = screen.getAllByRole('row').slice(1);
    const cells = rows.map((r) =>
      within(r)
        .getAllByRole('cell')
        .map((c) => c.textContent),
    );
    expect(cells[0]).toEqual(expect.arrayContaining(['关闭质疑', '血红蛋白', '已核实无误']));
    expect(cells[1]).toEqual(expect.arrayContaining(['保存', '血红蛋白', '130 g/L → 13.5 g/dL', '单位录错']));
    expect(cells[3]).toEqual(expect.arrayContaining(['合并症', '（空） → 高血压、其他（痛风）']));
    const links = within(rows[2]!).getAllByRole('link');
    expect(links.map((a) => [a.textContent?.trim(), a.getAttribute('href')])).toEqual([
      ['血常规报告.pdf', `/api/v1/fileupload/downfile?fileKey=${OLD}`],
      ['血常规复查.pdf', `/api/v1/fileupload/downfile?fileKey=${NEW}`],
    ]);
    expect(JSON.stringify(cells)).not.toMatch(/item\.update|doubt\.close|lab_report|htn/);

    fireEvent.click(screen.getByRole('button', { name: /导出/ }));
    await waitFor(() => expect(api.exportAudit).toHaveBeenCalledWith({ crfDataRecordId: 41 }));
  });

  it('the trail scrolls in a region named by the drawer title that the keyboard can reach', async () => {
    api.audit.mockResolvedValue({ code: 200, msg: '', data: [row({ newValue: 13.5, newText: '13.5 g/dL' })] });
    renderWithProviders(
      <HistoryDrawer target={{ crfDataRecordId: 41, itemName: 'hb', title: '血红蛋白' }} onClose={() => undefined} />,
    );
    await screen.findByText('13.5 g/dL', { exact: false });
    const trail = screen.getByRole('region', { name: '修改历史 · 血红蛋白' });
    expect(trail.tabIndex).toBe(0);
    expect(within(trail).getByRole('table')).toBeTruthy();
  });
});
