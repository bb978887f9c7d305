import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { ApiError } from '../../../../api/request';
import type { SelectedRow, SubjectRandomization } from '../../../../api/randomization.api';
import { renderWithProviders } from '../../../../test/render';
import { RandomizeDialog } from './randomize-dialog';
import { EmergencyDialog } from './unblind-dialogs';

const api = vi.hoisted(() => ({ subject: vi.fn(), randomize: vi.fn(), unblind: vi.fn() }));
vi.mock('../../../../api/randomization.api', async (importOriginal) => ({
  ...(await importOriginal<object>()),
  randomizationApi: api,
}));

afterEach(() => {
  cleanup();
  vi.clearAllMocks();
});

const result = (patch: Partial<SubjectRandomization> = {}): SubjectRandomization => ({
  randomizationId: 1,
  subjectId: 5,
  subjectRecordId: 9,
  randomizationNo: 'R0001',
  randomizationTime: '2026-03-02T01:02:03Z',
  kitCode: 'K2345ABCDE',
  blinded: true,
  armVisible: false,
  arm: null,
  armLabel: null,
  stratum: 'site=S1',
  stratumLabel: '第一中心',
  emergencyUnblinded: false,
  test: false,
  ...patch,
});
const target = { subjectId: 5, identificationCode: 'LSS-0001', subjectName: '张**' };

describe('随机 dialog', () => {
  it('RAND-05: shows an eligibility refusal as the server words it, and nothing of an arm', async () => {
    api.subject.mockResolvedValue({ data: null });
    api.randomize.mockRejectedValue(new ApiError(400, '未满足随机条件：表单“人口学资料”未提交', 400));
    renderWithProviders(<RandomizeDialog studyId={3} target={target} onClose={() => {}} />);
    fireEvent.click(await screen.findByRole('button', { name: '确认随机' }));
    expect(await screen.findByText('未满足随机条件：表单“人口学资料”未提交')).toBeTruthy();
    expect(api.randomize).toHaveBeenCalledWith(3, 5);
  });

  it('RAND-05: a blinded user gets the number and the kit code only', async () => {
    api.subject.mockResolvedValue({ data: null });
    api.randomize.mockResolvedValue({ data: result() });
    renderWithProviders(<RandomizeDialog studyId={3} target={target} onClose={() => {}} />);
    fireEvent.click(await screen.findByRole('button', { name: '确认随机' }));
    expect(await screen.findByText('随机成功')).toBeTruthy();
    expect(screen.getByText('R0001')).toBeTruthy();
    expect(screen.getByText('K2345ABCDE')).toBeTruthy();
    expect(screen.queryByText(/试验组/)).toBeNull();
  });

  it('a patient randomized before shows the result with its 已紧急揭盲 mark, without a second randomization', async () => {
    api.subject.mockResolvedValue({ data: result({ emergencyUnblinded: true }) });
    renderWithProviders(<RandomizeDialog studyId={3} target={target} onClose={() => {}} />);
    expect(await screen.findByText('已紧急揭盲')).toBeTruthy();
    expect(screen.queryByRole('button', { name: '确认随机' })).toBeNull();
  });
});

describe('紧急揭盲 dialog', () => {
  const row = { ...result(), identificationCode: 'LSS-0001', subjectName: '张**', deptName: '', randomizeBy: '' };

  it('RAND-06: needs a reason and the password, then shows the arm to this user', async () => {
    api.unblind.mockResolvedValue({
      data: {
        ...result({ armVisible: true, arm: 'A', armLabel: '试验组', emergencyUnblinded: true }),
        unblindTime: '',
      },
    });
    renderWithProviders(<EmergencyDialog studyId={3} row={row as SelectedRow} onClose={() => {}} />);
    fireEvent.click(await screen.findByRole('button', { name: '确认揭盲' }));
    expect(await screen.findByText('请填写揭盲原因')).toBeTruthy();
    expect(await screen.findByText('请输入密码')).toBeTruthy();
    expect(api.unblind).not.toHaveBeenCalled();
    fireEvent.change(screen.getByLabelText('揭盲原因'), { target: { value: '严重不良事件' } });
    fireEvent.change(screen.getByLabelText('登录密码'), { target: { value: 'secret' } });
    fireEvent.click(screen.getByRole('button', { name: '确认揭盲' }));
    await waitFor(() =>
      expect(api.unblind).toHaveBeenCalledWith({
        studyId: 3,
        subjectId: 5,
        password: 'secret',
        reason: '严重不良事件',
      }),
    );
    expect(await screen.findByText('试验组（A）')).toBeTruthy();
    expect(screen.getByText('分组仅向您显示，请勿告知他人')).toBeTruthy();
  });
});
