import { useEffect, useState } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { App } from 'antd';
import { renderWithProviders } from '../test/render';
import { ChangePasswordDialog } from './change-password-dialog';

const api = vi.hoisted(() => ({
  changePassword: vi.fn(async () => ({ code: 200, msg: '修改成功', data: null })),
  resetPassword: vi.fn(async () => ({ code: 200, msg: '重置成功', data: null })),
}));
vi.mock('../api/auth.api', () => ({ authApi: api }));

const target = { userId: 7, userName: '13800000001' };

function typeInto(label: string, value: string) {
  fireEvent.change(screen.getByLabelText(label), { target: { value } });
}

afterEach(() => {
  cleanup();
  api.changePassword.mockClear();
  api.resetPassword.mockClear();
});

describe('change-password dialog', () => {
  it('AUTH-08: titled 修改密码 with 原始密码, 用户名, 新密码, 确认密码 and the buttons 取消 and 确定', () => {
    renderWithProviders(<ChangePasswordDialog open mode="normal" target={target} onClose={() => undefined} />);
    expect(screen.getByText('修改密码')).toBeTruthy();
    for (const label of ['原始密码', '用户名', '新密码', '确认密码']) expect(screen.getByLabelText(label)).toBeTruthy();
    expect(screen.getByRole('button', { name: '取消' })).toBeTruthy();
    expect(screen.getByRole('button', { name: '确定' })).toBeTruthy();
    expect((screen.getByLabelText('用户名') as HTMLInputElement).value).toBe('13800000001');
  });

  it('AUTH-15/AUTH-21: shows the rule messages under the fields', async () => {
    renderWithProviders(<ChangePasswordDialog open mode="normal" target={target} onClose={() => undefined} />);
    typeInto('新密码', 'abcdefg');
    typeInto('确认密码', 'abcdefh');
    fireEvent.click(screen.getByRole('button', { name: '确定' }));
    await waitFor(() => expect(screen.getByText('请输入原始密码')).toBeTruthy());
    expect(screen.getByText('两次输入密码不一致!')).toBeTruthy();
    expect(api.changePassword).not.toHaveBeenCalled();
  });

  it('AUTH-11/AUTH-13: sends userId, oldPassword and newPassword to the change call', async () => {
    const onClose = vi.fn();
    renderWithProviders(<ChangePasswordDialog open mode="normal" target={target} onClose={onClose} />);
    typeInto('原始密码', 'Admin@123');
    typeInto('新密码', 'Nurse@2024');
    typeInto('确认密码', 'Nurse@2024');
    fireEvent.click(screen.getByRole('button', { name: '确定' }));
    await waitFor(() =>
      expect(api.changePassword).toHaveBeenCalledWith({
        userId: 7,
        oldPassword: 'Admin@123',
        newPassword: 'Nurse@2024',
      }),
    );
    await waitFor(() => expect(screen.getByText('修改成功')).toBeTruthy());
    expect(onClose).toHaveBeenCalled();
  });

  it('AUTH-09/AUTH-12: reset mode hides the original password, keeps the username read-only and calls reset', async () => {
    renderWithProviders(<ChangePasswordDialog open mode="reset" target={target} onClose={() => undefined} />);
    expect(screen.queryByLabelText('原始密码')).toBeNull();
    expect((screen.getByLabelText('用户名') as HTMLInputElement).readOnly).toBe(true);
    typeInto('新密码', 'Reset@123');
    typeInto('确认密码', 'Reset@123');
    fireEvent.click(screen.getByRole('button', { name: '确定' }));
    await waitFor(() => expect(api.resetPassword).toHaveBeenCalledWith({ userId: 7, newPassword: 'Reset@123' }));
    expect(api.changePassword).not.toHaveBeenCalled();
  });

  it('AUTH-10: in must-change mode there is no close icon and no cancel, and Escape does not close it', () => {
    const onClose = vi.fn();
    renderWithProviders(<ChangePasswordDialog open mode="must" target={target} onClose={onClose} />);
    expect(document.querySelector('.ant-modal-close')).toBeNull();
    expect(screen.queryByRole('button', { name: '取消' })).toBeNull();
    fireEvent.keyDown(document.querySelector('.ant-modal')!, { key: 'Escape', code: 'Escape', keyCode: 27 });
    fireEvent.keyDown(document.body, { key: 'Escape', code: 'Escape', keyCode: 27 });
    expect(onClose).not.toHaveBeenCalled();
    expect(screen.getByText('修改密码')).toBeTruthy();
  });

  it('AUTH-10: the forced change says why and offers 退出登录 as the only other way out', () => {
    const onLogout = vi.fn();
    renderWithProviders(
      <ChangePasswordDialog open mode="must" target={target} onClose={() => undefined} onLogout={onLogout} />,
    );
    expect(screen.getByRole('alert').textContent).toBe('首次登录、密码已重置或密码已过期，请修改密码后继续使用');
    fireEvent.click(screen.getByRole('button', { name: '退出登录' }));
    expect(onLogout).toHaveBeenCalledTimes(1);
    expect(api.changePassword).not.toHaveBeenCalled();
  });

  it('AUTH-10: the rules and the change call stay those of the own-password change', async () => {
    renderWithProviders(
      <ChangePasswordDialog open mode="must" target={target} onClose={() => undefined} onLogout={() => undefined} />,
    );
    typeInto('原始密码', 'Start@123');
    typeInto('新密码', 'Start@123');
    typeInto('确认密码', 'Start@123');
    fireEvent.click(screen.getByRole('button', { name: '确定' }));
    await waitFor(() => expect(screen.getByText('不能和原始密码相同!')).toBeTruthy());
    typeInto('新密码', 'Nurse@2024');
    typeInto('确认密码', 'Nurse@2024');
    fireEvent.click(screen.getByRole('button', { name: '确定' }));
    await waitFor(() =>
      expect(api.changePassword).toHaveBeenCalledWith({
        userId: 7,
        oldPassword: 'Start@123',
        newPassword: 'Nurse@2024',
      }),
    );
  });

  it('AUTH-10: a message left from the sign-in is cleared when the forced change opens', async () => {
    function SignedIn() {
      const { message } = App.useApp();
      const [must, setMust] = useState(false);
      useEffect(() => {
        void message.error('用户不存在/密码错误', 30);
      }, [message]);
      return (
        <>
          <button type="button" onClick={() => setMust(true)}>
            signed in
          </button>
          <ChangePasswordDialog open={must} mode="must" target={target} onClose={() => undefined} />
        </>
      );
    }
    renderWithProviders(<SignedIn />);
    await screen.findByText('用户不存在/密码错误');
    // happy-dom runs no CSS transitions: a destroyed notice stays in its leave state instead of going away.
    const staying = () =>
      [...document.querySelectorAll('.ant-message-notice')].filter((notice) => !/-leave\b/.test(notice.className));
    expect(staying()).toHaveLength(1);
    fireEvent.click(screen.getByRole('button', { name: 'signed in' }));
    await waitFor(() => expect(staying()).toHaveLength(0));
    expect(screen.getByText('首次登录、密码已重置或密码已过期，请修改密码后继续使用')).toBeTruthy();
  });
});
