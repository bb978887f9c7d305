import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import type { MessageRow } from '@ecrf/core';
import type * as MessagesApi from '../../../../api/messages.api';
import { renderWithProviders } from '../../../../test/render';
import { MessagesDrawer } from './messages-drawer';

const row = (over: Partial<MessageRow>): MessageRow => ({
  id: 1,
  subjectId: 2,
  identificationCode: 'P001',
  subjectName: '张*',
  kind: 'pro_invite',
  channel: 'wechat',
  provider: 'dev',
  recipient: 'oAbC…xYz9',
  content: '张*您好，请填写示例研究的问卷《生活质量问卷》',
  state: 'skipped',
  attempts: 0,
  notBefore: '2026-03-01T01:00:00Z',
  sentAt: null,
  deliveredAt: null,
  error: '患者已退订',
  providerAnswer: null,
  createTime: '2026-03-01T00:00:00Z',
  ...over,
});

const api = vi.hoisted(() => ({
  list: vi.fn(),
  optState: vi.fn(),
  optOut: vi.fn(async () => ({ code: 200, msg: '已退订', data: null })),
  optIn: vi.fn(async () => ({ code: 200, msg: '已恢复提醒', data: null })),
}));
vi.mock('../../../../api/messages.api', async (importOriginal) => {
  const original = await importOriginal<typeof MessagesApi>();
  return { ...original, messagesApi: api };
});

afterEach(() => {
  cleanup();
  vi.clearAllMocks();
});

const target = { subjectId: 2, identificationCode: 'P001' };

describe('提醒记录 on the patient list (issue 38)', () => {
  it('lists the patient’s messages and records the patient’s 退订 with a reason', async () => {
    api.list.mockResolvedValue({ code: 200, msg: '', data: { list: [row({})], total: 1 } });
    api.optState.mockResolvedValue({
      code: 200,
      msg: '',
      data: { optedOut: false, source: null, reason: null, createTime: null },
    });
    renderWithProviders(<MessagesDrawer studyId={9} target={target} canChange onClose={() => undefined} />);
    expect(await screen.findByText('张*您好，请填写示例研究的问卷《生活质量问卷》')).toBeTruthy();
    expect(api.list).toHaveBeenCalledWith(9, { subjectId: 2, pageNum: 1, pageSize: 10 });
    expect(await screen.findByText('正常接收')).toBeTruthy();

    fireEvent.click(screen.getByRole('button', { name: '退订' }));
    const dialog = (await screen.findByText('为患者退订提醒')).closest('.ant-modal') as HTMLElement;
    fireEvent.change(within(dialog).getByRole('textbox'), { target: { value: '患者电话告知不再接收' } });
    fireEvent.click(within(dialog).getByRole('button', { name: /确\s*定/ }));
    await waitFor(() => expect(api.optOut).toHaveBeenCalledWith(9, 2, '患者电话告知不再接收'));
  });

  it('an opted-out patient shows who opted out; without 患者提醒 恢复提醒 is disabled', async () => {
    api.list.mockResolvedValue({ code: 200, msg: '', data: { list: [], total: 0 } });
    api.optState.mockResolvedValue({
      code: 200,
      msg: '',
      data: { optedOut: true, source: 'patient', reason: '不需要', createTime: '2026-03-01T00:00:00Z' },
    });
    renderWithProviders(<MessagesDrawer studyId={9} target={target} canChange={false} onClose={() => undefined} />);
    expect(await screen.findByText(/已退订（患者本人/)).toBeTruthy();
    expect((screen.getByRole('button', { name: '恢复提醒' }) as HTMLButtonElement).disabled).toBe(true);
  });
});
