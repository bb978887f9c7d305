import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { useSession } from '../stores/session.store';
import { renderWithProviders } from '../test/render';
import { Auth, AuthButton } from './permission';

beforeEach(() => {
  useSession.setState({ buttonPermissions: ['sys:user:add'], permissions: ['sys:user:edit'] });
});

afterEach(() => {
  cleanup();
  useSession.setState({ buttonPermissions: [], permissions: [] });
});

describe('permission helpers', () => {
  it('VIS-11: <Auth> shows its children for a code in either list and hides them otherwise', () => {
    renderWithProviders(
      <>
        <Auth code="sys:user:add">
          <span>新增用户入口</span>
        </Auth>
        <Auth code="sys:user:edit">
          <span>修改用户入口</span>
        </Auth>
        <Auth code="sys:user:remove">
          <span>删除用户入口</span>
        </Auth>
      </>,
    );
    expect(screen.getByText('新增用户入口')).toBeTruthy();
    expect(screen.getByText('修改用户入口')).toBeTruthy();
    expect(screen.queryByText('删除用户入口')).toBeNull();
  });

  it('VIS-12: <AuthButton> is enabled when granted, and disabled with 权限不足，请联系管理员 when denied', async () => {
    renderWithProviders(
      <>
        <AuthButton code="sys:user:add">新增</AuthButton>
        <AuthButton code="sys:user:remove">删除</AuthButton>
      </>,
    );
    const add = screen.getByRole('button', { name: '新增' }) as HTMLButtonElement;
    const remove = screen.getByRole('button', { name: '删除' }) as HTMLButtonElement;
    expect(add.disabled).toBe(false);
    expect(remove.disabled).toBe(true);
    fireEvent.mouseEnter(remove.parentElement!);
    await waitFor(() => expect(screen.getByText('权限不足，请联系管理员')).toBeTruthy());
  });
});
