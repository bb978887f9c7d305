import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import type { MessageRow } from '@ecrf/core';
import type * as MessagesApi from '../../../../api/messages.api';
import { renderWithProviders } from '../../../../test/render';
import { MessagesPanel } from './messages-panel';

const messageRow = (over: Partial<MessageRow> = {}): MessageRow => ({
  id: 1,
  subjectId: 2,
  identificationCode: 'P001',
  subjectName: '张*',
  kind: 'visit_before',
  channel: 'sms',
  provider: 'dev',
  recipient: '138****5678',
  content: '张*您好，您参加的示例研究将于……',
  state: 'delivered',
  attempts: 1,
  notBefore: '2026-03-01T01:00:00Z',
  sentAt: '2026-03-01T01:00:00Z',
  deliveredAt: '2026-03-01T01:00:05Z',
  error: null,
  providerAnswer: null,
  createTime: '2026-03-01T00:00:00Z',
  ...over,
});

const api = vi.hoisted(() => ({
  report: vi.fn(),
  list: vi.fn(),
  outbox: vi.fn(),
}));
vi.mock('../../../../api/messages.api', async (importOriginal) => {
  const original = await importOriginal<typeof MessagesApi>();
  return { ...original, messagesApi: api };
});

afterEach(() => {
  cleanup();
  vi.clearAllMocks();
});

const answer = <T,>(data: T) => ({ code: 200, msg: '', data });

describe('随访管理 · 患者提醒 (issue 38)', () => {
  it('shows the delivery report and the messages; a state filter asks the server again', async () => {
    api.report.mockResolvedValue(
      answer({ total: 5, byState: { delivered: 3, failed: 1, skipped: 1 }, byKind: [], optedOut: 2 }),
    );
    api.list.mockResolvedValue(
      answer({ list: [messageRow(), messageRow({ id: 2, state: 'failed', error: '号码无效' })], total: 2 }),
    );
    api.outbox.mockRejectedValue(new Error('404'));
    renderWithProviders(<MessagesPanel studyId={9} />);

    await within(await screen.findByRole('group', { name: '已送达' })).findByText('3');
    await waitFor(() => expect(within(screen.getByRole('group', { name: '消息总数' })).getByText('5')).toBeTruthy());
    expect(within(screen.getByRole('group', { name: '发送失败' })).getByText('1')).toBeTruthy();
    expect(within(screen.getByRole('group', { name: '已退订' })).getByText('2')).toBeTruthy();

    const table = await screen.findByRole('table');
    await within(table).findByText('发送失败');
    expect(within(table).getAllByText('随访窗口前提醒')).toHaveLength(2);
    expect(within(table).getAllByText('138****5678')).toHaveLength(2);
    expect(api.list).toHaveBeenCalledWith(9, { pageNum: 1, pageSize: 20 });
    // No development provider: no outbox.
    expect(screen.queryByRole('button', { name: '开发发件箱' })).toBeNull();

    fireEvent.mouseDown(screen.getByRole('combobox', { name: '状态' }));
    fireEvent.click(await screen.findByTitle('发送失败'));
    await waitFor(() => expect(api.list).toHaveBeenCalledWith(9, { pageNum: 1, pageSize: 20, state: 'failed' }));
  });

  it('with the development provider a 开发发件箱 lists the full messages', async () => {
    api.report.mockResolvedValue(answer({ total: 1, byState: { sent: 1 }, byKind: [], optedOut: 0 }));
    api.list.mockResolvedValue(answer({ list: [], total: 0 }));
    api.outbox.mockResolvedValue(answer({ list: [messageRow({ content: '张*您好，请填写问卷' })], total: 1 }));
    renderWithProviders(<MessagesPanel studyId={9} />);
    fireEvent.click(await screen.findByRole('button', { name: '开发发件箱' }));
    expect(await screen.findByText('张*您好，请填写问卷')).toBeTruthy();
  });
});
