import { afterEach, describe, expect, it, vi } from 'vitest';
import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import type { SaeReport } from '@ecrf/core';
import { renderWithProviders } from '../../../test/render';
import { dispatchPush } from '../../../realtime/realtime-events';
import { SAE_REFRESH_MS, SaeReports } from './components/sae-reports';
import SafetyPage from '.';

const report = (over: Partial<SaeReport>): SaeReport => ({
  saeReportId: 1,
  studyId: 9,
  subjectRecordId: 3,
  crfDataRecordId: 30,
  crfId: 4,
  identificationCode: 'LSS-001',
  siteId: 2,
  siteName: '甲中心',
  term: '肺炎',
  grade: '3',
  version: 1,
  kind: 'initial',
  state: 'pending',
  awareAt: '2026-11-22T02:00:00.000Z',
  deadlineAt: '2026-11-23T02:00:00.000Z',
  clockState: 'running',
  remainingMs: 23 * 3600_000,
  clockText: '剩余 23小时0分',
  submittedAt: null,
  submittedByName: null,
  createdAt: '2026-11-22T02:10:00.000Z',
  ...over,
});

const ROWS = [
  report({}),
  report({
    saeReportId: 2,
    crfDataRecordId: 31,
    identificationCode: 'LSS-002',
    term: '心肌梗死',
    clockState: 'overdue',
    remainingMs: -2 * 3600_000,
    clockText: '已超时 2小时',
  }),
  report({
    saeReportId: 3,
    crfDataRecordId: 32,
    identificationCode: 'LSS-003',
    term: '骨折',
    state: 'submitted',
    clockState: 'submitted',
    clockText: '已按时提交',
    submittedAt: '2026-11-22T05:00:00.000Z',
  }),
];

const api = vi.hoisted(() => ({
  module: vi.fn(async (_studyId: number) => ({
    code: 200,
    msg: '',
    data: { enabled: true, aeCrfId: 4 as number | null },
  })),
  list: vi.fn(async (_params: object) => ({ code: 200, msg: '', data: { list: [] as SaeReport[], total: 0 } })),
  submit: vi.fn(async (_studyId: number, _id: number) => ({ code: 200, msg: '报告已提交', data: {} })),
  followup: vi.fn(async (_studyId: number, _id: number) => ({ code: 200, msg: '随访报告已创建', data: {} })),
  exportReport: vi.fn(async (_studyId: number, _id: number, _format: string) => ({
    data: new Blob(['docx']),
    headers: { 'content-disposition': "attachment; filename*=UTF-8''x.docx" },
  })),
}));
vi.mock('../../../api/safety.api', () => ({ safetyApi: api }));

const download = vi.hoisted(() => ({ saveDownload: vi.fn() }));
vi.mock('../../../utils/download', () => download);

const project = vi.hoisted(() => ({ granted: true }));
vi.mock('../use-project-study', () => ({
  useProjectStudy: () => ({
    studyId: 9,
    study: { id: 9 },
    query: { isError: false },
    can: (code: string) => code === 'btn:business.safety' && project.granted,
  }),
}));

afterEach(() => {
  cleanup();
  vi.clearAllMocks();
  vi.useRealTimers();
  project.granted = true;
});

const rowOf = (text: string) => screen.getByText(text).closest('tr')!;

describe('不良事件 page', () => {
  it('lists the SAE reports with their clocks, versions and states; a late one reads 已超时 in red', async () => {
    api.list.mockResolvedValue({ code: 200, msg: '', data: { list: ROWS, total: 3 } });
    renderWithProviders(<SaeReports studyId={9} />);
    const first = await screen.findByText('LSS-001');
    const row = first.closest('tr')!;
    expect(within(row).getByText('肺炎')).toBeTruthy();
    expect(within(row).getByText('剩余 23小时0分')).toBeTruthy();
    expect(within(row).getByText('v1 首次报告')).toBeTruthy();
    expect(within(row).getByText('待提交')).toBeTruthy();
    expect(within(row).getByRole('button', { name: '提交报告' })).toBeTruthy();
    expect(within(row).queryByRole('button', { name: '随访报告' })).toBeNull();

    const late = within(rowOf('LSS-002')).getByText('已超时 2小时');
    expect(late.closest('.ant-tag')?.className).toMatch(/ant-tag-red|ant-tag-color-red/);
    expect(within(rowOf('LSS-001')).getByText('剩余 23小时0分').closest('.ant-tag')).toBeNull();

    const sent = rowOf('LSS-003');
    expect(within(sent).getByText('已提交')).toBeTruthy();
    expect(within(sent).getByRole('button', { name: '随访报告' })).toBeTruthy();
    expect(within(sent).queryByRole('button', { name: '提交报告' })).toBeNull();
    expect(api.list).toHaveBeenCalledWith({ studyId: 9, pageNum: 1, pageSize: 10 });
  });

  it('submits a pending report after the confirmation and reads the list again', async () => {
    api.list.mockResolvedValue({ code: 200, msg: '', data: { list: ROWS, total: 3 } });
    renderWithProviders(<SaeReports studyId={9} />);
    await screen.findByText('LSS-001');
    fireEvent.click(within(rowOf('LSS-001')).getByRole('button', { name: '提交报告' }));
    expect(await screen.findByText('确认提交该SAE报告？')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: /确\s*定|OK/ }));
    await waitFor(() => expect(api.submit).toHaveBeenCalledWith(9, 1));
    await waitFor(() => expect(api.list).toHaveBeenCalledTimes(2));
  });

  it('creates a follow-up of the latest submitted version only', async () => {
    const v2 = report({
      saeReportId: 4,
      crfDataRecordId: 32,
      identificationCode: 'LSS-003',
      term: '骨折',
      version: 2,
      kind: 'followup',
    });
    api.list.mockResolvedValue({ code: 200, msg: '', data: { list: [v2, ROWS[2]!], total: 2 } });
    renderWithProviders(<SaeReports studyId={9} />);
    const followup = await screen.findByText('v2 随访报告');
    expect(within(followup.closest('tr')!).getByRole('button', { name: '提交报告' })).toBeTruthy();
    // v1 was followed up already: its 随访报告 would be refused.
    expect(screen.queryByRole('button', { name: '随访报告' })).toBeNull();
  });

  it('exports a report as 导出Word, 导出PDF or 导出CIOMS and saves the file', async () => {
    api.list.mockResolvedValue({ code: 200, msg: '', data: { list: ROWS, total: 3 } });
    renderWithProviders(<SaeReports studyId={9} />);
    await screen.findByText('LSS-003');
    for (const [label, format] of [
      ['导出Word', 'docx'],
      ['导出PDF', 'pdf'],
      ['导出CIOMS', 'cioms'],
    ] as const) {
      fireEvent.click(within(rowOf('LSS-003')).getByRole('button', { name: '导出' }));
      fireEvent.click(await screen.findByRole('menuitem', { name: label }));
      await waitFor(() => expect(api.exportReport).toHaveBeenLastCalledWith(9, 3, format));
    }
    await waitFor(() => expect(download.saveDownload).toHaveBeenCalledTimes(3));
    expect(download.saveDownload.mock.calls[1]![1]).toBe('SAE-LSS-003-v1.pdf');
  });

  it('filters by state', async () => {
    api.list.mockResolvedValue({ code: 200, msg: '', data: { list: ROWS, total: 3 } });
    renderWithProviders(<SaeReports studyId={9} />);
    await screen.findByText('LSS-001');
    fireEvent.click(screen.getByLabelText('已提交'));
    await waitFor(() =>
      expect(api.list).toHaveBeenLastCalledWith({ studyId: 9, state: 'submitted', pageNum: 1, pageSize: 10 }),
    );
  });

  it('reads the clocks again every minute and when a new SAE is pushed', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    api.list.mockResolvedValue({ code: 200, msg: '', data: { list: ROWS, total: 3 } });
    renderWithProviders(<SaeReports studyId={9} />);
    await screen.findByText('LSS-001');
    expect(api.list).toHaveBeenCalledTimes(1);
    await act(async () => {
      await vi.advanceTimersByTimeAsync(SAE_REFRESH_MS);
    });
    await waitFor(() => expect(api.list).toHaveBeenCalledTimes(2));
    act(() => dispatchPush('sae', { saeReportId: 5, studyId: 9, subjectRecordId: 3, deadlineAt: ROWS[0]!.deadlineAt }));
    await waitFor(() => expect(api.list).toHaveBeenCalledTimes(3));
    // Another study's report is not this list's.
    act(() => dispatchPush('sae', { saeReportId: 6, studyId: 8, subjectRecordId: 3, deadlineAt: ROWS[0]!.deadlineAt }));
    await act(async () => {
      await vi.advanceTimersByTimeAsync(100);
    });
    expect(api.list).toHaveBeenCalledTimes(3);
  });

  it('says when the module is off', async () => {
    api.module.mockResolvedValueOnce({ code: 200, msg: '', data: { enabled: false, aeCrfId: null } });
    renderWithProviders(<SaeReports studyId={9} />);
    expect(await screen.findByText(/项目未开启不良事件模块/)).toBeTruthy();
  });

  it('shows the no-permission state without 安全性报告', async () => {
    project.granted = false;
    renderWithProviders(<SafetyPage />);
    expect(await screen.findByText('当前用户无操作权限，请联系管理员')).toBeTruthy();
    expect(api.list).not.toHaveBeenCalled();
  });

  it('shows the list to a holder of 安全性报告', async () => {
    renderWithProviders(<SafetyPage />);
    expect(await screen.findByRole('heading', { name: '不良事件' })).toBeTruthy();
    await waitFor(() => expect(api.list).toHaveBeenCalled());
  });
});
