import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, within } from '@testing-library/react';
import { useSession } from '../../../stores/session.store';
import { renderWithProviders } from '../../../test/render';
import UserPage from '.';

const user = (userId: number, userName: string, name: string) => ({
  userId,
  userName,
  name,
  deptId: 1,
  deptName: '根机构',
  roleNames: ['超级管理员'],
  status: 0,
  createTime: '2026-01-02T03:04:05Z',
});

const api = vi.hoisted(() => ({
  list: vi.fn(async () => ({
    code: 200,
    msg: '',
    data: { list: [user(1, '13800000000', '系统管理员'), user(2, '13900000000', '研究护士')], total: 2 },
  })),
  remove: vi.fn(),
  changeStatus: vi.fn(),
}));
vi.mock('../../../api/system.api', () => ({
  userApi: api,
  deptApi: { list: vi.fn(async () => ({ code: 200, msg: '', data: [] })) },
}));

beforeEach(() =>
  useSession.setState({
    token: 't',
    user: { userId: 1, userName: '13800000000', name: '系统管理员', remark: null, token: 't', home: null },
    permissions: ['*:*:*'],
    buttonPermissions: ['*:*:*'],
  }),
);
afterEach(() => {
  cleanup();
  useSession.setState({ token: null, user: null, permissions: [], buttonPermissions: [] });
});

describe('用户管理', () => {
  it('SYS-12/SYS-13: delete and disable are not offered on one’s own account, only on others', async () => {
    renderWithProviders(<UserPage />);
    const own = (await screen.findByText('系统管理员')).closest('tr')!;
    const other = screen.getByText('研究护士').closest('tr')!;
    expect(within(own).getByRole('switch', { name: '启用 系统管理员' }).hasAttribute('disabled')).toBe(true);
    expect(within(other).getByRole('switch', { name: '启用 研究护士' }).hasAttribute('disabled')).toBe(false);
    // Editing one's own profile and password stays possible.
    expect(within(own).getByRole('button', { name: '修改' })).toBeTruthy();
    // 重置密码 and 删除 are under 更多: only 重置密码 on one's own row.
    fireEvent.click(within(own).getByRole('button', { name: '更多' }));
    expect(await screen.findByRole('menuitem', { name: '重置密码' })).toBeTruthy();
    expect(screen.queryByRole('menuitem', { name: '删除' })).toBeNull();
    fireEvent.click(within(other).getByRole('button', { name: '更多' }));
    expect(await screen.findByRole('menuitem', { name: '删除' })).toBeTruthy();
  });
});
