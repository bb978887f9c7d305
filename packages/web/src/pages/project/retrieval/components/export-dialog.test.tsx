import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { renderWithProviders } from '../../../../test/render';
import { ExportButton } from './export-dialog';

const api = vi.hoisted(() => ({
  exportCrfs: vi.fn(async () => ({
    code: 200,
    msg: '',
    data: [
      {
        crfId: 1,
        title: '人口学资料',
        repeatable: false,
        stages: [{ stageId: 9, name: '基线' }],
        itemCount: 12,
        identifierItems: ['出生日期', '联系电话'],
      },
      { crfId: 2, title: '生命体征', repeatable: false, stages: [], itemCount: 8, identifierItems: [] },
    ],
  })),
  study: vi.fn(async (_body: Record<string, unknown>) => ({ code: 200, msg: '', data: { jobId: 'j1' } })),
}));

vi.mock('../../../../api/search.api', () => ({ searchApi: { exportCrfs: api.exportCrfs } }));
vi.mock('../../../../api/export.api', () => ({ exportApi: { study: api.study, searchResult: vi.fn(), log: vi.fn() } }));

afterEach(() => {
  cleanup();
  vi.clearAllMocks();
});

async function openDialog() {
  renderWithProviders(<ExportButton studyId={5} conditions={null} total={null} seesIdentifiers />);
  fireEvent.click(screen.getByRole('button', { name: /^导\s*出$/ }));
  return screen.findByRole('dialog');
}

describe('导出 dialog', () => {
  it('names the items a de-identified export leaves out, and not when identifiers are included', async () => {
    const dialog = await openDialog();
    expect(
      await within(dialog).findByText('以下题目标记为身份信息，不导出：人口学资料：出生日期、联系电话'),
    ).toBeTruthy();
    fireEvent.click(within(dialog).getByRole('checkbox', { name: /包含患者身份信息/ }));
    await waitFor(() => expect(within(dialog).queryByText(/以下题目标记为身份信息/)).toBeNull());
  });

  it('REDCap: codes only, the labels choice shown as not taken, and codes asked of the server', async () => {
    const dialog = await openDialog();
    fireEvent.click(within(dialog).getByRole('radio', { name: /REDCap 导入格式/ }));
    expect(await within(dialog).findByText(/REDCap 导入只接受选项编码/)).toBeTruthy();
    const labels = within(dialog).getByRole('radio', { name: '标签' }) as HTMLInputElement;
    expect(labels.disabled).toBe(true);
    expect(labels.checked).toBe(false);
    fireEvent.click(screen.getByRole('button', { name: '开始导出' }));
    await waitFor(() => expect(api.study).toHaveBeenCalled());
    expect(api.study.mock.calls[0]![0]).toMatchObject({ format: 'redcap', labels: false, identifiers: false });
  });
});
