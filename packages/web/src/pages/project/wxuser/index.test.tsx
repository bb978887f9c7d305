import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { useAppStore } from '../../../stores/app.store';
import { renderWithProviders } from '../../../test/render';
import WxUserPage from '.';

const user = (subjectId: number, code: string, bound: boolean) => ({
  subjectId,
  subjectRecordId: subjectId + 100,
  identificationCode: code,
  subjectName: '孙*燕',
  diseaseCode: 'LSS',
  bound,
  openId: bound ? 'o-abc…' : null,
  boundAt: bound ? '2026-01-02T03:04:05Z' : null,
  codeExpiresAt: null,
});

const api = vi.hoisted(() => ({
  permissions: [] as string[],
  allMine: vi.fn(async () => ({ code: 200, msg: '', data: { list: [{ id: 5, studyName: '示例研究' }], total: 1 } })),
  study: vi.fn(async () => ({
    code: 200,
    msg: '',
    data: { id: 5, studyName: '示例研究', myRole: { permissions: api.permissions } },
  })),
  users: vi.fn(async (_params: Record<string, unknown>) => ({
    code: 200,
    msg: '',
    data: { list: [] as unknown[], total: 0 },
  })),
  bindCode: vi.fn(async () => ({
    code: 200,
    msg: '',
    data: { code: 'ABCD2345', expiresAt: '2026-01-03T03:04:05Z', bindPath: '/meil/bind?studyId=5' },
  })),
  unbind: vi.fn(async () => ({ code: 200, msg: '', data: null })),
}));

vi.mock('../../../api/study.api', () => ({ studyApi: { allMine: api.allMine, get: api.study } }));
vi.mock('../../../api/wechat.api', async (importOriginal) => ({
  ...(await importOriginal<object>()),
  wechatApi: { users: api.users, bindCode: api.bindCode, unbind: api.unbind },
}));

function renderPage(permissions: string[]) {
  api.permissions = permissions;
  api.users.mockImplementation(async () => ({
    code: 200,
    msg: '',
    data: { list: [user(41, 'LSS-0001', false), user(42, 'LSS-0002', true)], total: 2 },
  }));
  useAppStore.setState({ studyId: '5' });
  renderWithProviders(<WxUserPage />);
}

const lineOf = (code: string) =>
  waitFor(() => {
    const found = screen.getAllByRole('row').find((r) => r.textContent?.includes(code));
    if (!found) throw new Error(`no row ${code} yet`);
    return found;
  });

afterEach(() => {
  cleanup();
  vi.clearAllMocks();
  useAppStore.setState({ studyId: null });
});

describe('公众号用户', () => {
  it('KNOW-03: lists the patients with their binding; 发放绑定码 shows the code once, 解除绑定 only on a bound row', async () => {
    renderPage(['btn:business.subject.edit']);
    const unbound = await lineOf('LSS-0001');
    expect(api.users).toHaveBeenCalledWith({ studyId: 5, pageNum: 1, pageSize: 10 });
    expect(unbound.textContent).toContain('未绑定');
    expect(within(unbound).queryByRole('button', { name: '解除绑定' })).toBeNull();
    expect(within(await lineOf('LSS-0002')).getByRole('button', { name: '解除绑定' })).toBeTruthy();

    fireEvent.click(within(unbound).getByRole('button', { name: '发放绑定码' }));
    await waitFor(() => expect(api.bindCode).toHaveBeenCalledWith(5, 41));
    expect((await screen.findByTestId('bind-code')).textContent).toBe('ABCD2345');
    expect(screen.getByRole('dialog').textContent).toContain('绑定码：LSS-0001');
  });

  it('filters by 绑定状态 and 患者编号 on 搜索', async () => {
    renderPage(['btn:business.subject.edit']);
    await lineOf('LSS-0001');
    expect(screen.getByText('全部')).toBeTruthy();
    fireEvent.change(screen.getByLabelText('患者编号'), { target: { value: ' LSS-0002 ' } });
    fireEvent.click(screen.getByRole('button', { name: /搜索/ }));
    await waitFor(() =>
      expect(api.users).toHaveBeenLastCalledWith({ studyId: 5, pageNum: 1, pageSize: 10, keyword: 'LSS-0002' }),
    );
  });

  it('without 编辑患者 the codes cannot be issued', async () => {
    renderPage([]);
    const unbound = await lineOf('LSS-0001');
    expect(within(unbound).getByRole('button', { name: '发放绑定码' })).toHaveProperty('disabled', true);
  });
});
