import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
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
});
