import type { ReactNode } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { act, cleanup, fireEvent, renderHook, screen, waitFor, within } from '@testing-library/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { useSession } from '../../stores/session.store';
import { renderWithProviders } from '../../test/render';
import { AntProviders } from '../ant-providers';
import {
  actionsColumn,
  columnWidth,
  EllipsisText,
  fitColumns,
  KIND_WIDTH,
  RowActions,
  rowActionsWidth,
  splitActions,
  StatusSwitch,
  TablePage,
  tableWidth,
  toTableColumns,
  useSaveMutation,
  type PageColumn,
  type RowAction,
} from '.';

interface Person {
  id: number;
  name: string;
  status: number;
  createTime: string;
  birth: string;
}

const person = (id: number): Person => ({
  id,
  name: `张${id}`,
  status: 0,
  createTime: '2026-01-02T03:04:05Z',
  birth: '1960-03-15',
});

beforeEach(() => useSession.setState({ permissions: ['sys:user:edit'], buttonPermissions: [] }));
afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
  useSession.setState({ permissions: [], buttonPermissions: [] });
});

describe('columns declared once', () => {
  const columns: PageColumn<Person>[] = [
    { title: '姓名', dataIndex: 'name', minWidth: 120 },
    { title: '出生日期', dataIndex: 'birth', kind: 'date' },
    { title: '状态', dataIndex: 'status', kind: 'status' },
    { title: '创建时间', dataIndex: 'createTime', kind: 'datetime', hideOrder: 2 },
    { title: '备注', dataIndex: 'remark', width: 200, hideOrder: 1 },
    actionsColumn<Person>([
      { key: 'view', label: '查看', onClick: () => undefined },
      { key: 'edit', label: '修改', onClick: () => undefined },
    ]),
  ];

  it('takes each kind’s width (YYYY-MM-DD HH:mm:ss needs 160 px at 8 px padding, a date 100), a text column its minimum', () => {
    expect(columns.map(columnWidth).slice(0, 5)).toEqual([120, KIND_WIDTH.date, KIND_WIDTH.status, 160, 200]);
    expect(KIND_WIDTH).toMatchObject({ date: 100, datetime: 160 });
  });

  it('cuts text with an ellipsis whose tooltip is ours, leaves dates and statuses whole, fixes 操作 at the right', () => {
    const [name, birth, status, , , actions] = toTableColumns(columns);
    expect(name).toMatchObject({ ellipsis: { showTitle: false }, width: undefined });
    expect(birth).toMatchObject({ ellipsis: undefined, width: 100 });
    expect(status).toMatchObject({ ellipsis: undefined, width: KIND_WIDTH.status });
    expect(actions).toMatchObject({ fixed: 'right', title: '操作' });
    expect(actions!.width).toBe(columnWidth(columns[5]!));
  });

  it('lays the table out at the sum of the widths, with the 序号 column of platform §9 and a selection column', () => {
    const sum = columns.map(columnWidth).reduce((a, b) => a + b, 0);
    expect(tableWidth(columns)).toBe(sum);
    expect(tableWidth(columns, { index: true, selection: true })).toBe(sum + 100 + 40);
  });

  it('leaves out the optional columns, lowest hideOrder first, only as far as needed to fit', () => {
    const all = tableWidth(columns);
    const keys = (shown: PageColumn<Person>[]) => shown.map((c) => c.title);
    expect(keys(fitColumns(columns, all))).toContain('备注');
    expect(keys(fitColumns(columns, all - 1))).toEqual(['姓名', '出生日期', '状态', '创建时间', '操作']);
    expect(keys(fitColumns(columns, all - 201))).toEqual(['姓名', '出生日期', '状态', '操作']);
    // Nothing left to drop: the table scrolls sideways.
    expect(keys(fitColumns(columns, 10))).toEqual(['姓名', '出生日期', '状态', '操作']);
    // Not measured yet: every column.
    expect(fitColumns(columns, 0)).toHaveLength(6);
  });
});

describe('row actions', () => {
  it('keep at most 3 places: up to 3 actions all show, more go 2 in the row and the rest into 更多', () => {
    expect(splitActions([1, 2, 3])).toEqual({ shown: [1, 2, 3], more: [] });
    expect(splitActions([1, 2, 3, 4, 5, 6, 7])).toEqual({ shown: [1, 2], more: [3, 4, 5, 6, 7] });
    expect(splitActions([1, 2, 3, 4], 2)).toEqual({ shown: [1], more: [2, 3, 4] });
  });

  it('size the column for their links on one line, or for the widest when stacked', () => {
    const link = (label: string): RowAction<Person> => ({ key: label, label, onClick: () => undefined });
    const two = rowActionsWidth([link('查看'), link('修改')]);
    const seven = rowActionsWidth(
      ['修改', '项目配置', 'CRF管理', 'ECRF阶段', '项目角色', '项目人员', '删除'].map(link),
    );
    expect(seven).toBeGreaterThan(two);
    expect(seven).toBeLessThan(220);
    expect(rowActionsWidth([link('录入'), link('查看'), link('更多一')], 3, true)).toBeLessThan(two);
  });

  it('keep each action’s permission: denied ones stay visible, disabled, with 权限不足，请联系管理员, in the row and in 更多', async () => {
    const onClick = vi.fn();
    const actions: RowAction<Person>[] = [
      { key: 'view', label: '查看', onClick },
      { key: 'edit', label: '修改', code: 'sys:user:edit', onClick },
      { key: 'reset', label: '重置密码', code: 'sys:user:resetPwd', onClick },
      { key: 'remove', label: '删除', code: 'sys:user:remove', danger: true, onClick },
    ];
    renderWithProviders(<RowActions row={person(1)} actions={actions} />);
    expect(screen.getByRole('button', { name: '修改' })).toHaveProperty('disabled', false);
    expect(screen.queryByRole('button', { name: '删除' })).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: '更多' }));
    const remove = await screen.findByRole('menuitem', { name: '删除' });
    expect(remove.getAttribute('aria-disabled')).toBe('true');
    fireEvent.click(remove);
    expect(onClick).not.toHaveBeenCalled();
    fireEvent.mouseEnter(within(remove).getByText('删除'));
    await waitFor(() => expect(screen.getByText('权限不足，请联系管理员')).toBeTruthy());
  });

  it('ask first: a popover for a link in the row, a dialog for an entry of 更多; hidden ones are not offered', async () => {
    useSession.setState({ permissions: ['*:*:*'] });
    const removed = vi.fn(async () => undefined);
    const edited = vi.fn();
    const actions: RowAction<Person>[] = [
      { key: 'edit', label: '修改', onClick: edited },
      { key: 'view', label: '查看', onClick: () => undefined },
      { key: 'secret', label: '隐藏操作', hidden: () => true, onClick: () => undefined },
      {
        key: 'remove',
        label: '删除',
        danger: true,
        confirm: (row) => ({ title: `确定删除“${row.name}”吗？` }),
        onClick: removed,
      },
    ];
    renderWithProviders(<RowActions row={person(3)} actions={actions} />);
    fireEvent.click(screen.getByRole('button', { name: '修改' }));
    expect(edited).toHaveBeenCalledWith(person(3));
    fireEvent.click(screen.getByRole('button', { name: '更多' }));
    await screen.findByRole('menuitem', { name: '删除' });
    expect(screen.queryByRole('menuitem', { name: '隐藏操作' })).toBeNull();
    fireEvent.click(screen.getByRole('menuitem', { name: '删除' }));
    await screen.findAllByText('确定删除“张3”吗？');
    expect(removed).not.toHaveBeenCalled();
    fireEvent.click(screen.getByRole('button', { name: '确定' }));
    await waitFor(() => expect(removed).toHaveBeenCalledWith(person(3)));
  });

  it('offer a choice as a drop-down on the link (导出 as …)', async () => {
    const exported = vi.fn();
    renderWithProviders(
      <RowActions
        row={person(2)}
        actions={[
          {
            key: 'export',
            label: '导出',
            choices: [
              { key: 'json', label: '导出 JSON' },
              { key: 'excel', label: '导出 Excel' },
            ],
            onClick: exported,
          },
        ]}
      />,
    );
    fireEvent.click(screen.getByRole('button', { name: '导出' }));
    fireEvent.click(await screen.findByRole('menuitem', { name: '导出 Excel' }));
    expect(exported).toHaveBeenCalledWith(person(2), 'excel');
  });
});

describe('StatusSwitch', () => {
  it('is named 启用 <name>, reads 正常/停用, and is disabled with the tooltip without the permission', async () => {
    const onChange = vi.fn();
    renderWithProviders(
      <>
        <StatusSwitch name="李护士" checked code="sys:user:edit" onChange={onChange} />
        <StatusSwitch name="王医生" checked={false} code="sys:user:remove" onChange={onChange} />
      </>,
    );
    const allowed = screen.getByRole('switch', { name: '启用 李护士' });
    expect(allowed.textContent).toContain('正常');
    fireEvent.click(allowed);
    expect(onChange).toHaveBeenCalledWith(false, expect.anything());
    const denied = screen.getByRole('switch', { name: '启用 王医生' });
    expect(denied.textContent).toContain('停用');
    expect(denied.hasAttribute('disabled')).toBe(true);
    fireEvent.mouseEnter(denied.parentElement!);
    await waitFor(() => expect(screen.getByText('权限不足，请联系管理员')).toBeTruthy());
  });
});

describe('EllipsisText', () => {
  it('shows the whole text in a tooltip only when its cell cuts it', async () => {
    const { container } = renderWithProviders(
      <table>
        <tbody>
          <tr>
            <td>
              <EllipsisText text="腰椎管狭窄症手术登记研究" />
            </td>
            <td>
              <EllipsisText text="短" />
            </td>
          </tr>
        </tbody>
      </table>,
    );
    const [cut, whole] = [...container.querySelectorAll('td')];
    Object.defineProperty(cut, 'scrollWidth', { value: 300 });
    Object.defineProperty(cut, 'clientWidth', { value: 120 });
    Object.defineProperty(whole, 'scrollWidth', { value: 20 });
    Object.defineProperty(whole, 'clientWidth', { value: 120 });
    fireEvent.mouseEnter(within(whole!).getByText('短'));
    fireEvent.mouseEnter(within(cut!).getByText('腰椎管狭窄症手术登记研究'));
    await waitFor(() => expect(screen.getAllByText('腰椎管狭窄症手术登记研究')).toHaveLength(2));
    expect(screen.getAllByText('短')).toHaveLength(1);
  });
});

describe('TablePage', () => {
  const columns: PageColumn<Person>[] = [
    { title: '姓名', dataIndex: 'name', search: true },
    {
      title: '状态',
      dataIndex: 'status',
      kind: 'status',
      search: {
        options: [
          { value: 0, label: '正常' },
          { value: 1, label: '停用' },
        ],
      },
    },
    { title: '创建时间', dataIndex: 'createTime', kind: 'datetime' },
  ];

  it('THEME-02/THEME-04: builds the search form from the searchable columns, pages on the server from page 1 and numbers the rows', async () => {
    const fetchPage = vi.fn(async (query: { pageNum: number; pageSize: number; name?: string }) => ({
      list: [person(query.pageNum)],
      total: 1,
    }));
    renderWithProviders(
      <TablePage<Person, { name?: string }>
        name="person-filter"
        rowKey="id"
        columns={columns}
        queryKey={['people']}
        fetchPage={fetchPage}
        toolbar={<button type="button">新增</button>}
      />,
    );
    await waitFor(() => expect(fetchPage).toHaveBeenCalledWith({ pageNum: 1, pageSize: 10 }));
    expect(screen.getByLabelText('姓名')).toBeTruthy();
    expect(screen.getByLabelText('状态')).toBeTruthy();
    expect(screen.queryByLabelText('创建时间')).toBeNull();
    expect(screen.getByRole('button', { name: '新增' })).toBeTruthy();
    expect(await screen.findByText('张1')).toBeTruthy();
    expect(screen.getAllByText('序号').length).toBeGreaterThan(0);
    // The platform's date-time format.
    expect(screen.getByText('2026-01-02 11:04:05')).toBeTruthy();

    // Typed text is trimmed and an empty filter left out.
    fireEvent.change(screen.getByLabelText('姓名'), { target: { value: '  张三 ' } });
    fireEvent.click(screen.getByRole('button', { name: /搜索/ }));
    await waitFor(() => expect(fetchPage).toHaveBeenLastCalledWith({ pageNum: 1, pageSize: 10, name: '张三' }));
    fireEvent.click(screen.getByRole('button', { name: /重置/ }));
    await waitFor(() => expect(fetchPage).toHaveBeenLastCalledWith({ pageNum: 1, pageSize: 10 }));
    expect((screen.getByLabelText('姓名') as HTMLInputElement).value).toBe('');
  });

  it('shows a tree loaded whole, for the filters, without paging or index', async () => {
    interface Node {
      id: number;
      name: string;
      children?: Node[];
    }
    const fetchAll = vi.fn(async () => [{ id: 1, name: '根机构', children: [{ id: 2, name: '心内科' }] }]);
    const { container } = renderWithProviders(
      <TablePage<Node>
        name="tree-filter"
        rowKey="id"
        columns={[{ title: '机构名称', dataIndex: 'name', search: true }]}
        queryKey={['tree']}
        fetchAll={fetchAll}
        paged={false}
        table={{ expandable: { defaultExpandAllRows: true } }}
      />,
    );
    expect(await screen.findByText('心内科')).toBeTruthy();
    expect(fetchAll).toHaveBeenCalledWith({});
    expect(screen.queryByText('序号')).toBeNull();
    expect(container.querySelector('.paged-table-bar')).toBeNull();
  });
});

describe('useSaveMutation', () => {
  function setup(editing: boolean) {
    const client = new QueryClient();
    const invalidate = vi.spyOn(client, 'invalidateQueries');
    const create = vi.fn(async () => ({ msg: '新增成功' }));
    const update = vi.fn(async () => ({ msg: '' }));
    const saved = vi.fn();
    const wrapper = ({ children }: { children: ReactNode }) => (
      <AntProviders>
        <QueryClientProvider client={client}>{children}</QueryClientProvider>
      </AntProviders>
    );
    const hook = renderHook(
      () => useSaveMutation({ editing, create, update, invalidate: [['user'], ['routers']], onSuccess: saved }),
      { wrapper },
    );
    return { hook, create, update, saved, invalidate };
  }

  it('creates when adding: the server’s message as a success, the lists refreshed, then the dialog’s own step', async () => {
    const { hook, create, update, saved, invalidate } = setup(false);
    act(() => hook.result.current.mutate({ name: '李护士' }));
    await waitFor(() => expect(saved).toHaveBeenCalled());
    expect(create).toHaveBeenCalledWith({ name: '李护士' });
    expect(update).not.toHaveBeenCalled();
    expect(invalidate.mock.calls.map(([filters]) => filters?.queryKey)).toEqual([['user'], ['routers']]);
    await waitFor(() => expect(document.body.textContent).toContain('新增成功'));
  });

  it('updates when editing, and says 操作成功 when the server sends no message', async () => {
    const { hook, create, update, saved } = setup(true);
    act(() => hook.result.current.mutate({ name: '李护士' }));
    await waitFor(() => expect(saved).toHaveBeenCalled());
    expect(update).toHaveBeenCalled();
    expect(create).not.toHaveBeenCalled();
    await waitFor(() => expect(document.body.textContent).toContain('操作成功'));
  });
});
