import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { renderWithProviders } from '../../../test/render';
import { CodingPanel, codingText } from './coding-panel';

const MEDDRA = {
  kind: 'meddra',
  lltCode: '90400002',
  lltName: 'Headache',
  ptCode: '90300001',
  ptName: '头痛',
  socCode: '90000001',
  socName: '虚构神经系统疾病',
};
const ROW = {
  id: 11,
  subjectRecordId: 3,
  crfDataRecordId: 8,
  patientCode: 'LSS-001',
  siteName: '甲中心',
  crfId: 4,
  crfName: '人口学资料',
  itemName: 'history_note',
  kind: 'meddra' as const,
  verbatim: '头疼得厉害',
  state: 'uncoded' as const,
  coding: null,
  codedBy: null,
  approvedBy: null,
};
const AUTO = { ...ROW, id: 12, patientCode: 'LSS-002', verbatim: 'Headache', state: 'auto' as const, coding: MEDDRA };

const api = vi.hoisted(() => ({
  dictionaries: vi.fn(async (_studyId: number) => ({
    code: 200,
    msg: '',
    data: [
      {
        id: 1,
        kind: 'meddra',
        version: '1.0',
        language: 'zh',
        active: true,
        termCount: 14,
        loadedBy: '管理员',
        loadedAt: '2026-11-22T08:00:00Z',
      },
    ],
  })),
  upload: vi.fn(),
  settings: vi.fn(async (_studyId: number) => ({
    code: 200,
    msg: '',
    data: [{ crfId: 4, itemName: 'history_note', kind: 'meddra' }],
  })),
  saveSettings: vi.fn(),
  list: vi.fn(async (_params: object) => ({ code: 200, msg: '', data: { list: [] as unknown[], total: 2 } })),
  search: vi.fn(async (_studyId: number, _kind: string, _q: string) => ({
    code: 200,
    msg: '',
    data: [
      {
        level: 'llt',
        code: '90300001',
        name: '头痛',
        current: true,
        path: { ...MEDDRA, lltCode: '90300001', lltName: '头痛' },
      },
    ],
  })),
  code: vi.fn(async (_studyId: number, _id: number, _code: string) => ({
    code: 200,
    msg: '',
    data: { id: 11, state: 'manual' },
  })),
  approve: vi.fn(async (_studyId: number, _ids: number[]) => ({ code: 200, msg: '', data: { approved: 1 } })),
  upgradeImpact: vi.fn(),
}));
vi.mock('../../../api/coding.api', () => ({ codingApi: api }));
vi.mock('../../../api/study.api', () => ({
  crfApi: { options: vi.fn(async () => ({ code: 200, msg: '', data: [{ id: 4, title: '人口学资料' }] })) },
}));

afterEach(() => {
  cleanup();
  vi.clearAllMocks();
});

describe('医学编码 panel', () => {
  it('words a coding as LLT / PT / SOC, or a drug with its ATC', () => {
    expect(codingText(MEDDRA)).toBe(
      'LLT Headache（90400002） / PT 头痛（90300001） / SOC 虚构神经系统疾病（90000001）',
    );
    expect(codingText({ kind: 'whodrug', drugName: '阿司匹林', drugCode: '900001', atcCode: 'N02BA01' })).toBe(
      '阿司匹林（900001）· ATC N02BA01',
    );
    expect(codingText(null)).toBe('');
  });

  it('lists the coded items with their state and codes; searches and codes one by hand', async () => {
    api.list.mockResolvedValue({ code: 200, msg: '', data: { list: [ROW, AUTO], total: 2 } });
    renderWithProviders(<CodingPanel studyId={9} />);
    const table = await screen.findByTestId('coding-list');
    expect(await within(table).findByText('头疼得厉害')).toBeTruthy();
    expect(within(table).getByText('未编码')).toBeTruthy();
    expect(within(table).getByText('自动编码')).toBeTruthy();
    expect(within(table).getByText(codingText(MEDDRA))).toBeTruthy();
    expect(api.list).toHaveBeenCalledWith({ studyId: 9, state: undefined, pageNum: 1, pageSize: 20 });
    // The loaded dictionary and the coded item settings.
    expect(await screen.findByText('14')).toBeTruthy();
    expect(await screen.findByDisplayValue('history_note')).toBeTruthy();

    const row = within(table).getByText('头疼得厉害').closest('tr')!;
    fireEvent.click(within(row).getByRole('button', { name: '编码' }));
    expect(await screen.findByText('人工编码：头疼得厉害')).toBeTruthy();
    await waitFor(() => expect(api.search).toHaveBeenCalledWith(9, 'meddra', '头疼得厉害'));
    const hits = await screen.findByTestId('coding-hits');
    fireEvent.click(await within(hits).findByRole('button', { name: '选择' }));
    await waitFor(() => expect(api.code).toHaveBeenCalledWith(9, 11, '90300001'));
  });

  it('approves the selected rows', async () => {
    api.list.mockResolvedValue({ code: 200, msg: '', data: { list: [AUTO], total: 1 } });
    renderWithProviders(<CodingPanel studyId={9} />);
    const table = await screen.findByTestId('coding-list');
    const row = (await within(table).findByText('Headache')).closest('tr')!;
    const approve = screen.getByRole('button', { name: '审核所选' }) as HTMLButtonElement;
    expect(approve.disabled).toBe(true);
    fireEvent.click(within(row).getByRole('checkbox'));
    await waitFor(() => expect(approve.disabled).toBe(false));
    fireEvent.click(approve);
    await waitFor(() => expect(api.approve).toHaveBeenCalledWith(9, [12]));
  });
});
