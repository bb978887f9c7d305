import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { renderWithProviders } from '../../../test/render';
import { QualityPanel } from './quality-panel';

const RUN = {
  runId: 5,
  studyId: 9,
  scope: { kind: 'study' as const },
  state: 'done' as const,
  jobId: 'job-5',
  progress: 100,
  recordsChecked: 12,
  findingsCount: 3,
  error: null,
  startedBy: '数据管理员',
  createDate: '2026-11-22T08:00:00Z',
  finishDate: '2026-11-22T08:00:05Z',
};
const FINDING = {
  findingId: 41,
  runId: 5,
  subjectRecordId: 3,
  crfDataRecordId: 8,
  identificationCode: 'LSS-001',
  deptId: 2,
  siteName: '甲中心',
  crfId: 4,
  crfTitle: '生命体征',
  itemName: 'sbp',
  itemTitle: '收缩压',
  ruleKey: 'required',
  ruleText: '收缩压：必填项未填写，请补充',
  status: 'open' as const,
  doubtId: null,
};

const api = vi.hoisted(() => ({
  start: vi.fn(async (_body: object) => ({ code: 200, msg: '', data: { runId: 6, jobId: 'job-6' } })),
  runs: vi.fn(async (_params: object) => ({ code: 200, msg: '', data: { list: [RUN], total: 1 } })),
  run: vi.fn(async (_studyId: number, _runId: number) => ({
    code: 200,
    msg: '',
    data: {
      ...RUN,
      rules: [
        { ruleKey: 'duplicate:nameBirth', ruleText: '疑似重复患者（姓名与出生日期相同）', count: 2, open: 2 },
        { ruleKey: 'required', ruleText: '必填项未填写', count: 1, open: 1 },
      ],
    },
  })),
  findings: vi.fn(async (_params: object) => ({ code: 200, msg: '', data: { list: [FINDING], total: 1 } })),
  raiseQueries: vi.fn(async (_body: object) => ({ code: 200, msg: '', data: { raised: 1, refused: [] } })),
  dashboard: vi.fn(async (_studyId: number) => ({
    code: 200,
    msg: '',
    data: {
      runs: [
        {
          runId: 5,
          runDate: '2026-11-22T08:00:00Z',
          open: 3,
          bySite: [{ deptId: 2, siteName: '甲中心', open: 3 }],
          byRule: [{ ruleKey: 'required', ruleText: '必填项未填写', open: 1 }],
        },
      ],
    },
  })),
}));
vi.mock('../../../api/quality.api', () => ({ qualityApi: api }));
vi.mock('../../../api/randomization.api', () => ({
  randomizationApi: {
    factorDepts: vi.fn(async () => ({ code: 200, msg: '', data: [{ deptId: 2, deptName: '甲中心' }] })),
  },
}));
vi.mock('../../../api/study.api', () => ({
  crfApi: { options: vi.fn(async () => ({ code: 200, msg: '', data: [{ id: 4, title: '生命体征' }] })) },
}));

afterEach(() => {
  cleanup();
  vi.clearAllMocks();
});

describe('数据核查 panel', () => {
  it('shows the latest run with its counts per rule, drills down into a rule and gives the dashboard', async () => {
    renderWithProviders(<QualityPanel studyId={9} canRaise />);
    expect((await screen.findByTestId('quality-summary')).textContent).toBe('已核查表单记录 12 份，发现问题 3 条');
    expect(api.run).toHaveBeenCalledWith(9, 5);
    const row = within(screen.getByTestId('quality-rules'))
      .getByText('必填项未填写', { selector: 'td' })
      .closest('tr')!;
    fireEvent.click(within(row).getByRole('button', { name: '查看明细' }));
    expect(await screen.findByText('收缩压：必填项未填写，请补充')).toBeTruthy();
    expect(screen.getByText('LSS-001')).toBeTruthy();
    expect(api.findings).toHaveBeenCalledWith({ studyId: 9, runId: 5, ruleKey: 'required', pageNum: 1, pageSize: 10 });
    const board = await screen.findByTestId('quality-dashboard');
    expect(within(board).getByText('各中心未处理问题')).toBeTruthy();
    expect(within(board).getByText('未处理合计')).toBeTruthy();
  });

  it('raises the queries of one rule after a confirmation', async () => {
    renderWithProviders(<QualityPanel studyId={9} canRaise />);
    await screen.findByTestId('quality-summary');
    const row = within(screen.getByTestId('quality-rules'))
      .getByText('必填项未填写', { selector: 'td' })
      .closest('tr')!;
    fireEvent.click(within(row).getByRole('button', { name: '批量发起质疑' }));
    fireEvent.click(await screen.findByRole('button', { name: /确\s*定|OK/ }));
    await waitFor(() => expect(api.raiseQueries).toHaveBeenCalledWith({ studyId: 9, runId: 5, ruleKey: 'required' }));
  });

  it('starts a run of one site once a site is chosen', async () => {
    renderWithProviders(<QualityPanel studyId={9} canRaise={false} />);
    await screen.findByTestId('quality-summary');
    expect(screen.queryByRole('button', { name: '批量发起质疑' })).toBeNull();
    fireEvent.click(screen.getByLabelText('按中心'));
    const start = screen.getByRole('button', { name: '开始核查' }) as HTMLButtonElement;
    expect(start.disabled).toBe(true);
    fireEvent.mouseDown(screen.getByLabelText('请选择中心'));
    fireEvent.click(await screen.findByTitle('甲中心'));
    await waitFor(() => expect(start.disabled).toBe(false));
    fireEvent.click(start);
    await waitFor(() => expect(api.start).toHaveBeenCalledWith({ studyId: 9, scope: { kind: 'site', deptId: 2 } }));
  });
});
