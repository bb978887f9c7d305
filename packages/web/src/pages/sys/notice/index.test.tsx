import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { useSession } from '../../../stores/session.store';
import { renderWithProviders } from '../../../test/render';
import NoticePage from '.';

const NOTICE = {
  noticeId: 3,
  title: '随访系统升级通知',
  content: '本周六晚 22:00 起暂停服务一小时',
  targetType: 'role',
  targetRoleId: 2,
  targetStudyId: null,
  targetName: '研究护士',
  readCount: 4,
  createTime: '2026-01-02T03:04:05Z',
  updateTime: '2026-01-02T03:04:05Z',
};

const api = vi.hoisted(() => ({
  list: vi.fn(async (_params: Record<string, unknown>) => ({
    code: 200,
    msg: '',
    data: { list: [NOTICE as unknown], total: 1 },
  })),
  add: vi.fn(async () => ({ code: 200, msg: '发布成功', data: { noticeId: 4 } })),
  update: vi.fn(async () => ({ code: 200, msg: '修改成功', data: { noticeId: 3 } })),
  remove: vi.fn(async () => ({ code: 200, msg: '删除成功', data: null })),
}));

vi.mock('../../../api/notice.api', () => ({ noticeAdminApi: api }));

const lineOf = (title: string) =>
  waitFor(() => {
    const found = screen.getAllByRole('row').find((r) => r.textContent?.includes(title));
    if (!found) throw new Error(`no row ${title} yet`);
    return found;
  });

afterEach(() => {
  cleanup();
  vi.clearAllMocks();
  useSession.setState({ permissions: [] });
});

describe('通知公告', () => {
  it('lists the notices with their receivers, searches by 公告标题 and publishes a new one', async () => {
    useSession.setState({ permissions: ['sys:notice:add', 'sys:notice:edit', 'sys:notice:remove'] });
    renderWithProviders(<NoticePage />);
    const line = await lineOf('随访系统升级通知');
    expect(within(line).getByText('指定角色：研究护士')).toBeTruthy();
    expect(api.list).toHaveBeenCalledWith({ pageNum: 1, pageSize: 10 });

    fireEvent.change(screen.getByLabelText('公告标题'), { target: { value: ' 升级 ' } });
    fireEvent.click(screen.getByRole('button', { name: /搜索/ }));
    await waitFor(() => expect(api.list).toHaveBeenLastCalledWith({ pageNum: 1, pageSize: 10, title: '升级' }));

    fireEvent.click(screen.getByRole('button', { name: /发布公告/ }));
    const dialog = await screen.findByRole('dialog');
    fireEvent.change(within(dialog).getByLabelText('标题'), { target: { value: '节假日安排' } });
    fireEvent.change(within(dialog).getByLabelText('内容'), { target: { value: '五一放假' } });
    fireEvent.click(within(dialog).getByRole('button', { name: /确\s?定/ }));
    await waitFor(() =>
      expect(api.add).toHaveBeenCalledWith({
        title: '节假日安排',
        content: '五一放假',
        targetType: 'all',
        targetRoleId: null,
        targetStudyId: null,
      }),
    );
    await screen.findByText('发布成功');
  });

  it('without the buttons, 修改 and 删除 are disabled', async () => {
    renderWithProviders(<NoticePage />);
    const line = await lineOf('随访系统升级通知');
    expect(within(line).getByRole('button', { name: '修改' })).toHaveProperty('disabled', true);
    expect(within(line).getByRole('button', { name: '删除' })).toHaveProperty('disabled', true);
  });
});
