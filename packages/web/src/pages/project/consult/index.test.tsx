import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import type { ConsultView } from '@ecrf/core';
import { dispatchPush } from '../../../realtime/realtime-events';
import { useAppStore } from '../../../stores/app.store';
import { useSession } from '../../../stores/session.store';
import { renderWithProviders } from '../../../test/render';
import ConsultPage from '.';

const row = (id: number, state: 0 | 1 | 2, title: string): ConsultView =>
  ({
    id,
    studyId: 5,
    subjectId: 41,
    identificationCode: 'LSS-0001',
    subjectName: '孙晓燕',
    title,
    question: '出院两周了，弯腰捡东西会不会影响恢复？',
    state,
    stateName: ['待回复', '已回复', '已关闭'][state],
    source: state === 0 ? 'staff' : 'patient',
    answer: null,
    answeredByName: null,
    answeredTime: null,
    createTime: '2026-01-02T03:04:05Z',
  }) as unknown as ConsultView;

const api = vi.hoisted(() => ({
  permissions: [] as string[],
  allMine: vi.fn(async () => ({ code: 200, msg: '', data: { list: [{ id: 5, studyName: '示例研究' }], total: 1 } })),
  study: vi.fn(async () => ({
    code: 200,
    msg: '',
    data: { id: 5, studyName: '示例研究', myRole: { permissions: api.permissions } },
  })),
  list: vi.fn(async (_params: Record<string, unknown>) => ({
    code: 200,
    msg: '',
    data: { list: [] as unknown[], total: 0 },
  })),
  close: vi.fn(async () => ({ code: 200, msg: '', data: null })),
}));

vi.mock('../../../api/study.api', () => ({ studyApi: { allMine: api.allMine, get: api.study } }));
vi.mock('../../../api/consult.api', () => ({ consultApi: { list: api.list, close: api.close } }));

function renderPage(permissions: string[]) {
  api.permissions = permissions;
  api.list.mockImplementation(async () => ({
    code: 200,
    msg: '',
    data: { list: [row(1, 0, '术后多久可以弯腰'), row(2, 2, '复查需要空腹吗')], total: 2 },
  }));
  useAppStore.setState({ studyId: '5' });
  renderWithProviders(<ConsultPage />);
}

const lineOf = (title: string) =>
  waitFor(() => {
    const found = screen.getAllByRole('row').find((r) => r.textContent?.includes(title));
    if (!found) throw new Error(`no row ${title} yet`);
    return found;
  });

afterEach(() => {
  cleanup();
  vi.clearAllMocks();
  useAppStore.setState({ studyId: null });
  useSession.setState({ permissions: [] });
});

describe('在线咨询', () => {
  it('KNOW-05: lists the study last opened, waiting questions with 回复 and 关闭, closed ones with 查看 only', async () => {
    renderPage(['btn:business.consult.reply']);
    const waiting = await lineOf('术后多久可以弯腰');
    expect(api.list).toHaveBeenCalledWith({ studyId: 5, pageNum: 1, pageSize: 10 });
    expect(within(waiting).getByText('待回复')).toBeTruthy();
    expect(within(waiting).getByText('工作人员代提')).toBeTruthy();
    expect(within(waiting).getByRole('button', { name: '回复' })).toHaveProperty('disabled', false);
    expect(within(waiting).getByRole('button', { name: '关闭' })).toHaveProperty('disabled', false);
    const closed = await lineOf('复查需要空腹吗');
    expect(within(closed).getByRole('button', { name: '查看' })).toBeTruthy();
    expect(within(closed).queryByRole('button', { name: '回复' })).toBeNull();
    expect(screen.getByRole('button', { name: '代患者提问' })).toHaveProperty('disabled', false);
  });

  it('filters by state and words on 搜索 and closes a question after asking', async () => {
    renderPage(['btn:business.consult.reply']);
    await lineOf('术后多久可以弯腰');
    fireEvent.change(screen.getByLabelText('标题/内容/患者编号'), { target: { value: ' 弯腰 ' } });
    fireEvent.click(screen.getByRole('button', { name: /搜索/ }));
    await waitFor(() =>
      expect(api.list).toHaveBeenLastCalledWith({ studyId: 5, pageNum: 1, pageSize: 10, keyword: '弯腰' }),
    );

    fireEvent.click(within(await lineOf('术后多久可以弯腰')).getByRole('button', { name: '关闭' }));
    fireEvent.click(await screen.findByRole('button', { name: /确\s?定/ }));
    await waitFor(() => expect(api.close).toHaveBeenCalledWith(5, 1));
    await screen.findByText('关闭成功');
  });

  it('reads the list again on a consult push for the study shown', async () => {
    renderPage(['btn:business.consult.view']);
    await lineOf('术后多久可以弯腰');
    const calls = api.list.mock.calls.length;
    dispatchPush('consult', { studyId: 5, consultId: 3, kind: 'asked' } as never);
    await waitFor(() => expect(api.list.mock.calls.length).toBeGreaterThan(calls));
  });

  it('with 查看咨询 only, 回复 and 代患者提问 are disabled; without it the page says so and lists nothing', async () => {
    renderPage(['btn:business.consult.view']);
    const waiting = await lineOf('术后多久可以弯腰');
    expect(within(waiting).getByRole('button', { name: '回复' })).toHaveProperty('disabled', true);
    expect(screen.getByRole('button', { name: '代患者提问' })).toHaveProperty('disabled', true);
    cleanup();
    api.list.mockClear();

    renderPage([]);
    await screen.findByText('您没有“查看咨询”权限，请联系项目管理员');
    expect(api.list).not.toHaveBeenCalled();
  });
});
