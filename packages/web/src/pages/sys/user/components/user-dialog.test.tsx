import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { ApiError } from '../../../../api/request';
import { renderWithProviders } from '../../../../test/render';
import { UserDialog, type UserDialogState } from './user-dialog';

const api = vi.hoisted(() => ({
  user: { get: vi.fn(), add: vi.fn(), update: vi.fn() },
  role: {
    list: vi.fn(async () => ({
      code: 200,
      msg: '',
      data: { list: [{ roleId: 1, roleName: '超级管理员', roleKey: 'admin', status: 0 }], total: 1 },
    })),
  },
  dept: { list: vi.fn(async () => ({ code: 200, msg: '', data: [{ deptId: 1, parentId: 0, deptName: '根机构' }] })) },
}));
vi.mock('../../../../api/system.api', () => ({ userApi: api.user, roleApi: api.role, deptApi: api.dept }));

const NURSE = {
  userId: 2,
  userName: '13900000000',
  name: '研究护士',
  sex: 1,
  email: null,
  mobile: null,
  deptId: 1,
  roleIds: [1],
  remark: null,
  status: 0,
};

afterEach(() => {
  cleanup();
  vi.clearAllMocks();
});

function open(state: UserDialogState) {
  const onClose = vi.fn();
  api.user.get.mockResolvedValue({ code: 200, msg: '', data: NURSE });
  renderWithProviders(<UserDialog state={state} onClose={onClose} />);
  return onClose;
}

const clickOk = () => fireEvent.click(screen.getByRole('button', { name: /确\s*定/ }));

describe('user dialog', () => {
  it('SYS-14: titled 新增用户, 修改用户 or 查看用户 by its mode', async () => {
    open({ mode: 'add' });
    expect(await screen.findByRole('dialog', { name: '新增用户' })).toBeTruthy();
    cleanup();
    open({ mode: 'edit', userId: 2 });
    expect(await screen.findByRole('dialog', { name: '修改用户' })).toBeTruthy();
    cleanup();
    open({ mode: 'view', userId: 2 });
    const dialog = await screen.findByRole('dialog', { name: '查看用户' });
    expect(within(dialog).queryByRole('button', { name: /确\s*定/ })).toBeNull();
  });

  it('SYS-18/SYS-21/SYS-22: an empty new user shows 请输入密码, 请选择所属机构 and 请选择所属职位 and is not sent', async () => {
    open({ mode: 'add' });
    await screen.findByRole('dialog', { name: '新增用户' });
    clickOk();
    expect(await screen.findByText('请输入密码')).toBeTruthy();
    expect(await screen.findByText('请选择所属机构')).toBeTruthy();
    expect(await screen.findByText('请选择所属职位')).toBeTruthy();
    expect(api.user.add).not.toHaveBeenCalled();
  });

  it('SYS-15: code 200 shows the server message as a success and closes; another code shows it as an error', async () => {
    api.user.update.mockResolvedValueOnce({ code: 200, msg: '修改成功', data: NURSE });
    const onClose = open({ mode: 'edit', userId: 2 });
    await waitFor(() => expect((screen.getByLabelText('用户名') as HTMLInputElement).value).toBe('13900000000'));
    clickOk();
    const success = await screen.findByText('修改成功');
    expect(success.closest('.ant-message-success')).toBeTruthy();
    await waitFor(() => expect(onClose).toHaveBeenCalled());
    expect(api.user.update).toHaveBeenCalledWith(expect.objectContaining({ userId: 2, userName: '13900000000' }));

    api.user.update.mockRejectedValueOnce(new ApiError(409, '用户名已存在', 409));
    clickOk();
    const failure = await screen.findByText('用户名已存在');
    expect(failure.closest('.ant-message-error')).toBeTruthy();
  });

  it('账号有效期: shows the saved day in its date picker and sends it as YYYY-MM-DD; a typed day replaces it', async () => {
    api.user.get.mockResolvedValue({ code: 200, msg: '', data: { ...NURSE, expiresOn: '2026-12-31' } });
    api.user.update.mockResolvedValue({ code: 200, msg: '修改成功', data: null });
    renderWithProviders(<UserDialog state={{ mode: 'edit', userId: 2 }} onClose={vi.fn()} />);
    const picker = (await screen.findByLabelText('账号有效期')) as HTMLInputElement;
    await waitFor(() => expect(picker.value).toBe('2026-12-31'));
    fireEvent.mouseDown(picker);
    fireEvent.change(picker, { target: { value: '2027-01-15' } });
    fireEvent.keyDown(picker, { key: 'Enter', code: 'Enter' });
    fireEvent.blur(picker);
    clickOk();
    await waitFor(() =>
      expect(api.user.update).toHaveBeenCalledWith(expect.objectContaining({ userId: 2, expiresOn: '2027-01-15' })),
    );
  });

  it('账号有效期 is optional: a new user starts without one (长期有效)', async () => {
    open({ mode: 'add' });
    const dialog = await screen.findByRole('dialog', { name: '新增用户' });
    expect((within(dialog).getByLabelText('账号有效期') as HTMLInputElement).placeholder).toBe('长期有效');
  });

  it('THEME-10: a drop-down reads its options unpaged (pageNum 1, pageSize 999999) and offers them all', async () => {
    open({ mode: 'add' });
    await screen.findByRole('dialog', { name: '新增用户' });
    await waitFor(() => expect(api.role.list).toHaveBeenCalledWith({ pageNum: 1, pageSize: 999999 }));
  });
});
