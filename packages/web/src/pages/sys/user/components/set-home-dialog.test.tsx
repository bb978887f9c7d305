import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { renderWithProviders } from '../../../../test/render';
import { SetHomeDialog } from './set-home-dialog';

const api = vi.hoisted(() => ({ setHome: vi.fn(async () => ({ code: 200, msg: '操作成功', data: null })) }));
vi.mock('../../../../api/system.api', () => ({ userApi: api }));

afterEach(() => {
  cleanup();
  api.setHome.mockClear();
});

describe('set-home dialog', () => {
  it('SYS-24: sends the chosen route code with the selected user ids and shows 操作成功', async () => {
    const onClose = vi.fn();
    renderWithProviders(<SetHomeDialog open userIds={[3, 5]} onClose={onClose} />);
    expect(screen.getByText('为选中的 2 个用户设置登录后进入的页面。')).toBeTruthy();
    // The pages are many (the list is virtual): the user finds one by typing.
    fireEvent.mouseDown(screen.getByRole('combobox'));
    fireEvent.change(screen.getByRole('combobox'), { target: { value: '用户管理' } });
    fireEvent.click(await screen.findByText('用户管理（/sys/user）'));
    fireEvent.click(screen.getByRole('button', { name: '确定' }));
    await waitFor(() => expect(api.setHome).toHaveBeenCalledWith('sys.user', [3, 5]));
    await waitFor(() => expect(screen.getByText('操作成功')).toBeTruthy());
    expect(onClose).toHaveBeenCalledWith(true);
  });

  it('asks for a page before saving', async () => {
    renderWithProviders(<SetHomeDialog open userIds={[3]} onClose={() => undefined} />);
    fireEvent.click(screen.getByRole('button', { name: '确定' }));
    await waitFor(() => expect(screen.getByText('请选择首页')).toBeTruthy());
    expect(api.setHome).not.toHaveBeenCalled();
  });
});
