import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { ApiError } from '../../api/request';
import { renderWithProviders } from '../../test/render';
import LoginPage from '.';

const api = vi.hoisted(() => ({
  captcha: vi.fn(async () => ({
    code: 200,
    msg: '',
    data: { captchaEnabled: true, uuid: 'u-1', img: 'data:image/png;base64,AAAA' },
  })),
  login: vi.fn(),
}));
vi.mock('../../api/auth.api', () => ({ authApi: api }));

afterEach(() => {
  cleanup();
  api.captcha.mockClear();
});

function renderLogin() {
  renderWithProviders(
    <MemoryRouter initialEntries={['/login']}>
      <LoginPage />
    </MemoryRouter>,
  );
}

describe('login page', () => {
  it('every input has a name beside its placeholder; the captcha picture is a named button that asks for a new one', async () => {
    renderLogin();
    expect(screen.getByRole('textbox', { name: '手机号' }).getAttribute('placeholder')).toBe('请输入手机号');
    expect(screen.getByLabelText('密码').getAttribute('placeholder')).toBe('请输入密码');
    expect(screen.getByRole('textbox', { name: '验证码' }).getAttribute('placeholder')).toBe('请输入验证码');
    const refresh = await screen.findByRole('button', { name: '验证码图片' });
    expect(refresh.getAttribute('title')).toBe('看不清？点击刷新');
    expect(screen.getByRole('img', { name: '验证码图片' })).toBeTruthy();
    fireEvent.click(refresh);
    await waitFor(() => expect(api.captcha).toHaveBeenCalledTimes(2));
  });

  it('a sign-in refused by the rules is announced with their messages', async () => {
    renderLogin();
    fireEvent.click(screen.getByRole('button', { name: '登 录' }));
    await waitFor(() => expect(screen.getByRole('alert').textContent).toBe('请输入用户名；请输入密码；请输入验证码'));
    expect(api.login).not.toHaveBeenCalled();
  });

  it("a sign-in refused by the server shows the server's words in a message that is announced (role=alert)", async () => {
    api.login.mockRejectedValueOnce(new ApiError(400, '用户名或密码错误，还可尝试4次', 400));
    renderLogin();
    fireEvent.change(screen.getByRole('textbox', { name: '手机号' }), { target: { value: '13800000000' } });
    fireEvent.change(screen.getByLabelText('密码'), { target: { value: 'Wrong@123' } });
    fireEvent.change(screen.getByRole('textbox', { name: '验证码' }), { target: { value: 'abcd' } });
    fireEvent.click(screen.getByRole('button', { name: '登 录' }));
    const notice = await screen.findByText('用户名或密码错误，还可尝试4次');
    expect(notice.closest('[role="alert"]')).toBeTruthy();
  });
});
