import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { renderWithProviders } from '../test/render';
import { ApiTokensPanel } from './api-tokens-panel';

const api = vi.hoisted(() => ({ list: vi.fn(), studies: vi.fn(), create: vi.fn(), revoke: vi.fn() }));
vi.mock('../api/api-token.api', () => ({ apiTokenApi: api }));

const TOKEN = '0123456789ABCDEF0123456789ABCDEF';
const live = {
  id: 3,
  studyId: 1,
  studyName: '腰椎研究',
  createTime: '2026-11-22T08:00:00Z',
  lastUsedTime: null,
  revokeTime: null,
};

afterEach(() => {
  cleanup();
  Object.values(api).forEach((fn) => fn.mockReset());
});

describe('API tokens on the personal page', () => {
  it('creates a token for a chosen study and shows it once with a copy button and the warning', async () => {
    api.list.mockResolvedValue({ code: 200, msg: '', data: [] });
    api.studies.mockResolvedValue({ code: 200, msg: '', data: [{ studyId: 1, studyName: '腰椎研究' }] });
    api.create.mockResolvedValue({ code: 200, msg: '', data: { id: 3, studyId: 1, token: TOKEN, createTime: '' } });
    renderWithProviders(<ApiTokensPanel />);
    expect(await screen.findByText('暂无API令牌')).toBeTruthy();
    const create = screen.getByRole('button', { name: '创建令牌' }) as HTMLButtonElement;
    expect(create.disabled).toBe(true);
    fireEvent.mouseDown(screen.getByRole('combobox', { name: '项目' }));
    fireEvent.click(await screen.findByTitle('腰椎研究'));
    await waitFor(() => expect(create.disabled).toBe(false));
    fireEvent.click(create);
    expect((await screen.findByTestId('new-api-token')).textContent).toBe(TOKEN);
    expect(screen.getByText('令牌只显示这一次，请立即复制并妥善保存，关闭后无法再次查看')).toBeTruthy();
    expect(screen.getByRole('button', { name: /复制/ })).toBeTruthy();
    expect(api.create).toHaveBeenCalledWith(1);
  });

  it('lists tokens without the token itself and revokes one after confirmation', async () => {
    api.list.mockResolvedValue({ code: 200, msg: '', data: [live] });
    api.studies.mockResolvedValue({ code: 200, msg: '', data: [] });
    api.revoke.mockResolvedValue({ code: 200, msg: '', data: null });
    renderWithProviders(<ApiTokensPanel />);
    const row = (await screen.findByText('腰椎研究')).closest('tr')!;
    expect(within(row).getByText('有效')).toBeTruthy();
    expect(within(row).getByText('未使用')).toBeTruthy();
    fireEvent.click(within(row).getByRole('button', { name: '撤销' }));
    expect(await screen.findByText('撤销后使用该令牌的程序将无法再访问，确定撤销？')).toBeTruthy();
    expect(api.revoke).not.toHaveBeenCalled();
    const confirm = screen.getAllByRole('button', { name: '撤销' }).at(-1)!;
    fireEvent.click(confirm);
    await waitFor(() => expect(api.revoke).toHaveBeenCalledWith(3));
  });
});
