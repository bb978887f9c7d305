import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { renderWithProviders } from '../../../../test/render';
import { MigrateDialog } from './migrate-dialog';

const api = vi.hoisted(() => ({ migrate: vi.fn(), job: vi.fn() }));
vi.mock('../../../../api/amendment.api', async (importOriginal) => ({
  ...(await importOriginal<object>()),
  amendmentApi: api,
}));
vi.mock('../../../../api/study.api', () => ({
  personnelApi: {
    sites: vi.fn(async () => ({
      code: 200,
      msg: '',
      data: [
        { deptId: 11, parentId: 1, deptName: '甲医院', orderNum: 1 },
        { deptId: 12, parentId: 1, deptName: '乙医院', orderNum: 2 },
      ],
    })),
  },
}));

const job = (state: string, progress: number, result: unknown = null) => ({
  code: 200,
  msg: '',
  data: { jobId: 'j1', kind: 'crf-migration', state, progress, message: null, error: null, result },
});

afterEach(() => {
  cleanup();
  vi.clearAllMocks();
});

describe('迁移数据', () => {
  it('moves all remaining records with the reason given, then shows the job’s result', async () => {
    api.migrate.mockResolvedValue({ code: 200, msg: '', data: { jobId: 'j1' } });
    api.job.mockResolvedValue(job('done', 100, { moved: 10, changed: 3, skippedLocked: 1, failed: 0 }));
    renderWithProviders(
      <MigrateDialog studyId={5} amendment={{ id: 77, name: '方案 2.0 版修订', remaining: 11 }} onClose={() => {}} />,
    );
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByText('全部待迁移记录（11 条）')).toBeTruthy();
    fireEvent.change(within(dialog).getByLabelText('原因'), { target: { value: '按修订迁移' } });
    fireEvent.click(within(dialog).getByRole('button', { name: '开始迁移' }));
    await waitFor(() =>
      expect(api.migrate).toHaveBeenCalledWith({
        studyId: 5,
        amendmentId: 77,
        scope: { kind: 'all' },
        reason: '按修订迁移',
      }),
    );
    await within(dialog).findByText('迁移完成');
    expect(within(dialog).getByText('已迁移 10、数据变化 3、锁定跳过 1')).toBeTruthy();
    expect(api.job).toHaveBeenCalledWith('j1');
  });

  it('按中心 needs at least one site; 指定记录 moves the records ticked in the report', async () => {
    api.migrate.mockResolvedValue({ code: 200, msg: '', data: { jobId: 'j1' } });
    api.job.mockResolvedValue(job('running', 40));
    renderWithProviders(
      <MigrateDialog
        studyId={5}
        amendment={{ id: 77, name: '方案 2.0 版修订', remaining: 11 }}
        recordIds={[31, 32]}
        onClose={() => {}}
      />,
    );
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByText('已选 2 条记录')).toBeTruthy();

    fireEvent.click(within(dialog).getByLabelText('按中心'));
    await within(dialog).findByText('中心', { exact: true });
    fireEvent.click(within(dialog).getByRole('button', { name: '开始迁移' }));
    await within(dialog).findByText('请选择中心');
    expect(api.migrate).not.toHaveBeenCalled();

    fireEvent.click(within(dialog).getByLabelText('指定记录'));
    await within(dialog).findByText('已选 2 条记录');
    fireEvent.click(within(dialog).getByRole('button', { name: '开始迁移' }));
    await waitFor(() =>
      expect(api.migrate).toHaveBeenCalledWith({
        studyId: 5,
        amendmentId: 77,
        scope: { kind: 'records', crfDataRecordIds: [31, 32] },
      }),
    );
    await within(dialog).findByRole('status', { name: '迁移进度' });
  });
});
