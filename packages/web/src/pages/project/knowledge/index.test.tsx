import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { useAppStore } from '../../../stores/app.store';
import { useSession } from '../../../stores/session.store';
import { renderWithProviders } from '../../../test/render';
import KnowledgePage from '.';

const article = (id: number, title: string, status: 'draft' | 'published', platform = false) => ({
  id,
  studyId: platform ? null : 5,
  platform,
  typeId: 2,
  typeName: '康复护理',
  title,
  summary: null,
  coverKey: null,
  coverUrl: null,
  status,
  publishTime: null,
  createTime: '2026-01-02T03:04:05Z',
  updateTime: '2026-01-02T03:04:05Z',
});

const api = vi.hoisted(() => ({
  permissions: [] as string[],
  allMine: vi.fn(async () => ({
    code: 200,
    msg: '',
    data: {
      list: [
        { id: 5, studyName: '示例研究' },
        { id: 6, studyName: '另一研究' },
      ],
      total: 2,
    },
  })),
  study: vi.fn(async (id: number) => ({
    code: 200,
    msg: '',
    data: { id, studyName: '示例研究', myRole: { permissions: api.permissions } },
  })),
  types: vi.fn(async () => ({ code: 200, msg: '', data: [{ id: 2, name: '康复护理', sort: 1 }] })),
  list: vi.fn(async (_params: Record<string, unknown>) => ({
    code: 200,
    msg: '',
    data: { list: [] as unknown[], total: 0 },
  })),
  remove: vi.fn(async () => ({ code: 200, msg: '', data: null })),
}));

vi.mock('../../../api/study.api', () => ({ studyApi: { allMine: api.allMine, get: api.study } }));
vi.mock('../../../api/content.api', () => ({
  knowledgeApi: { types: api.types, list: api.list, remove: api.remove },
}));

function renderPage(permissions: string[]) {
  api.permissions = permissions;
  api.list.mockImplementation(async () => ({
    code: 200,
    msg: '',
    data: {
      list: [article(1, '腰椎术后如何下床活动', 'published'), article(2, '平台宣教', 'draft', true)],
      total: 2,
    },
  }));
  useAppStore.setState({ studyId: '5' });
  renderWithProviders(<KnowledgePage />);
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

describe('知识库', () => {
  it('KNOW-01: lists the study last opened with its articles, a published one offering 患者端预览 as a link', async () => {
    renderPage(['btn:project.knowledge.manage']);
    const published = await lineOf('腰椎术后如何下床活动');
    expect(api.list).toHaveBeenCalledWith({ studyId: 5, pageNum: 1, pageSize: 10 });
    expect(within(published).getByText('已发布')).toBeTruthy();
    expect(within(published).getByText('康复护理')).toBeTruthy();
    expect(within(published).getByRole('link', { name: '患者端预览' }).getAttribute('href')).toBe('/m/knowledge/1');
    expect(within(published).getByRole('button', { name: '编辑' })).toHaveProperty('disabled', false);
    // A platform article is changed by 项目维护 holders only.
    const platform = await lineOf('平台宣教');
    expect(within(platform).getByText('全平台')).toBeTruthy();
    expect(within(platform).queryByRole('link', { name: '患者端预览' })).toBeNull();
    expect(within(platform).getByRole('button', { name: '删除' })).toHaveProperty('disabled', true);
    expect(screen.getByText('全部分类')).toBeTruthy();
    expect(screen.getByText('全部状态')).toBeTruthy();
    expect(screen.getByRole('button', { name: /新增文章/ })).toHaveProperty('disabled', false);
  });

  it('searches the words from page 1, and another study starts unfiltered', async () => {
    renderPage(['btn:project.knowledge.manage']);
    await lineOf('腰椎术后如何下床活动');
    fireEvent.change(screen.getByLabelText('关键词'), { target: { value: ' 下床 ' } });
    fireEvent.click(screen.getByRole('button', { name: /搜索/ }));
    await waitFor(() =>
      expect(api.list).toHaveBeenLastCalledWith({ studyId: 5, pageNum: 1, pageSize: 10, keyword: '下床' }),
    );

    fireEvent.mouseDown(screen.getByLabelText('项目'));
    fireEvent.click(await screen.findByTitle('另一研究'));
    await waitFor(() => expect(api.list).toHaveBeenLastCalledWith({ studyId: 6, pageNum: 1, pageSize: 10 }));
    expect((screen.getByLabelText('关键词') as HTMLInputElement).value).toBe('');
  });

  it('deletes an article after asking, with 删除成功', async () => {
    renderPage(['btn:project.knowledge.manage']);
    fireEvent.click(within(await lineOf('腰椎术后如何下床活动')).getByRole('button', { name: '删除' }));
    fireEvent.click(await screen.findByRole('button', { name: /确\s?定/ }));
    await waitFor(() => expect(api.remove).toHaveBeenCalledWith(5, 1));
    await screen.findByText('删除成功');
  });

  it('without 管理知识库 the study’s articles cannot be changed', async () => {
    renderPage([]);
    const published = await lineOf('腰椎术后如何下床活动');
    expect(within(published).getByRole('button', { name: '编辑' })).toHaveProperty('disabled', true);
    expect(screen.getByRole('button', { name: /新增文章/ })).toHaveProperty('disabled', true);
  });
});
