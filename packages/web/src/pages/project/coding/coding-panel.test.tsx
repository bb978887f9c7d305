import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { useSession } from '../../../stores/session.store';
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
  codedById: null,
  codedAt: null,
  approvedBy: null,
  approvedAt: null,
};
const AUTO = {
  ...ROW,
  id: 12,
  patientCode: 'LSS-002',
  verbatim: 'Headache',
  state: 'auto' as const,
  coding: MEDDRA,
  codedAt: '2026-11-22T08:00:00Z',
};
/** Coded by hand by the signed-in user (7), so not theirs to approve. */
const MINE = {
  ...ROW,
  id: 13,
  patientCode: 'LSS-003',
  verbatim: '阿斯匹林',
  kind: 'whodrug' as const,
  state: 'manual' as const,
  coding: { kind: 'whodrug', drugCode: '90000101001', drugName: '阿司匹林', atcCode: 'N02BA', atcText: '虚构水杨酸类' },
  codedBy: '张编码',
  codedById: 7,
  codedAt: '2026-11-23T02:30:00Z',
};
const APPROVED = {
  ...AUTO,
  id: 14,
  patientCode: 'LSS-004',
  verbatim: '头痛',
  state: 'approved' as const,
  approvedBy: '李审核',
  approvedAt: '2026-11-24T01:00:00Z',
};

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
  useSession.setState({ user: null });
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
    expect(within(table).getByText('头痛（90300001）')).toBeTruthy();
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

  it('approves the selected rows (编码审核)', async () => {
    api.list.mockResolvedValue({ code: 200, msg: '', data: { list: [AUTO], total: 1 } });
    renderWithProviders(<CodingPanel studyId={9} canApprove />);
    const table = await screen.findByTestId('coding-list');
    const row = (await within(table).findByText('Headache')).closest('tr')!;
    const approve = screen.getByRole('button', { name: '审核所选' }) as HTMLButtonElement;
    expect(approve.disabled).toBe(true);
    fireEvent.click(within(row).getByRole('checkbox'));
    await waitFor(() => expect(approve.disabled).toBe(false));
    fireEvent.click(approve);
    await waitFor(() => expect(api.approve).toHaveBeenCalledWith(9, [12]));
  });

  it('shows the verbatim beside LLT, PT, SOC or drug and ATC, the state, coder and approver with their times', async () => {
    useSession.setState({
      user: { userId: 7, userName: 'coder', name: '张编码', remark: null, token: 'x', home: null },
    });
    api.list.mockResolvedValue({ code: 200, msg: '', data: { list: [AUTO, MINE, APPROVED], total: 3 } });
    renderWithProviders(<CodingPanel studyId={9} canApprove />);
    const table = await screen.findByTestId('coding-list');
    await within(table).findByText('阿斯匹林');
    const headers = within(table)
      .getAllByRole('columnheader')
      .map((h) => h.textContent);
    for (const title of ['原始文本', 'LLT', 'PT', 'SOC', '药物', 'ATC', '状态', '编码人', '审核人']) {
      expect(headers).toContain(title);
    }
    const auto = within(table).getByText('Headache').closest('tr')!;
    expect(within(auto).getByText('Headache（90400002）')).toBeTruthy();
    expect(within(auto).getByText('头痛（90300001）')).toBeTruthy();
    expect(within(auto).getByText('虚构神经系统疾病（90000001）')).toBeTruthy();
    expect(within(auto).getByText('系统')).toBeTruthy();
    expect(within(auto).getByText('2026-11-22 16:00:00')).toBeTruthy();
    const mine = within(table).getByText('阿斯匹林').closest('tr')!;
    expect(within(mine).getByText('阿司匹林（90000101001）')).toBeTruthy();
    expect(within(mine).getByText('N02BA 虚构水杨酸类')).toBeTruthy();
    expect(within(mine).getByText('张编码')).toBeTruthy();
    const approved = within(table).getByText('头痛').closest('tr')!;
    expect(within(approved).getByText('李审核')).toBeTruthy();
    expect(within(approved).getByText('2026-11-24 09:00:00')).toBeTruthy();
    // The signed-in coder's own code is not hers to approve; another's auto-code is.
    expect((within(mine).getByRole('checkbox') as HTMLInputElement).disabled).toBe(true);
    expect((within(auto).getByRole('checkbox') as HTMLInputElement).disabled).toBe(false);
  });

  it('without 编码审核 there is no approve button and no row selection', async () => {
    api.list.mockResolvedValue({ code: 200, msg: '', data: { list: [AUTO], total: 1 } });
    renderWithProviders(<CodingPanel studyId={9} />);
    const table = await screen.findByTestId('coding-list');
    await within(table).findByText('Headache');
    expect(screen.queryByRole('button', { name: '审核所选' })).toBeNull();
    expect(within(table).queryByRole('checkbox')).toBeNull();
  });
});
