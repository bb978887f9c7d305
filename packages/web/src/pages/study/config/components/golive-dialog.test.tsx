import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { renderWithProviders } from '../../../../test/render';
import { GoLiveDialog } from './golive-dialog';

const COUNTS = {
  subjects: 3,
  crfRecords: 12,
  doubts: 2,
  randomizations: 1,
  followRecords: 4,
  files: 5,
  auditRows: 40,
};

const api = vi.hoisted(() => ({
  goLivePreview: vi.fn(async (_studyId: number) => ({
    code: 200,
    msg: '',
    data: { mode: 'test' as 'test' | 'production', counts: COUNTS },
  })),
  goLive: vi.fn(async (_body: object) => ({
    code: 200,
    msg: '上线成功',
    data: { wentLiveAt: '2026-11-22T08:00:00Z', purged: COUNTS },
  })),
}));
vi.mock('../../../../api/lifecycle.api', () => ({ lifecycleApi: api }));

afterEach(() => {
  cleanup();
  vi.clearAllMocks();
});

const STUDY = { id: 9, studyCode: 'LSS-REG', studyName: '腰椎管狭窄症登记研究' };

describe('上线 dialog', () => {
  it('names what will be purged (测试患者 N 例 … 稽查记录 N 条) from the server counts read on opening', async () => {
    renderWithProviders(<GoLiveDialog study={STUDY} open onClose={() => undefined} />);
    const counts = await screen.findByTestId('golive-counts');
    expect(counts.textContent).toBe(
      '测试患者 3 例、表单记录 12 份、质疑 2 条、随机 1 例、随访 4 次、文件 5 个、稽查记录 40 条',
    );
    expect(api.goLivePreview).toHaveBeenCalledWith(9);
    expect(screen.getByText('请输入项目编号 LSS-REG 以确认')).toBeTruthy();
  });

  it('refuses a code that is not the study’s and a missing reason; posts code and reason, then closes', async () => {
    const onClose = vi.fn();
    renderWithProviders(<GoLiveDialog study={STUDY} open onClose={onClose} />);
    await screen.findByTestId('golive-counts');
    const ok = () => screen.getByRole('button', { name: '确认上线' });
    await waitFor(() => expect((ok() as HTMLButtonElement).disabled).toBe(false));

    fireEvent.change(screen.getByLabelText('项目编号'), { target: { value: 'LSS' } });
    fireEvent.click(ok());
    expect(await screen.findByText('项目编号不一致')).toBeTruthy();
    expect(await screen.findByText('请填写上线原因')).toBeTruthy();
    expect(api.goLive).not.toHaveBeenCalled();

    fireEvent.change(screen.getByLabelText('项目编号'), { target: { value: ' LSS-REG ' } });
    fireEvent.change(screen.getByPlaceholderText('例如：用户验收测试完成，方案与表单已确认'), {
      target: { value: '验收完成' },
    });
    fireEvent.click(ok());
    await waitFor(() =>
      expect(api.goLive).toHaveBeenCalledWith({ studyId: 9, confirmCode: 'LSS-REG', reason: '验收完成' }),
    );
    await waitFor(() => expect(onClose).toHaveBeenCalled());
    expect(await screen.findByText('上线成功')).toBeTruthy();
  });

  it('a study already live offers nothing to confirm', async () => {
    api.goLivePreview.mockResolvedValueOnce({
      code: 200,
      msg: '',
      data: { mode: 'production', counts: { ...COUNTS, subjects: 0 } },
    });
    renderWithProviders(<GoLiveDialog study={STUDY} open onClose={() => undefined} />);
    expect(await screen.findByText('项目已上线：新录入的数据为正式数据。')).toBeTruthy();
    expect((screen.getByRole('button', { name: '确认上线' }) as HTMLButtonElement).disabled).toBe(true);
  });
});
