import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { MemoryRouter, Route, Routes, useLocation } from 'react-router';
import { useSession } from '../../../stores/session.store';
import { renderWithProviders } from '../../../test/render';
import SubjectListPage from '.';

const ROW = {
  id: 41,
  studyId: 5,
  subjectRecordId: 77,
  identificationCode: 'LSS-0001',
  subjectName: '张三',
  gender: 1,
  birth: '1960-03-15',
  age: 66,
  mobile: '13912345678',
  diseaseCode: 'LSS',
  openId: null,
  qrCode: 'q',
  deptId: 2,
  deptName: '骨科',
  state: 0,
  creater: '系统管理员',
  createTime: '2026-01-02T03:04:05Z',
  itemDatas: [],
  crfStates: { total: 3, submitted: 1, incomplete: 2, doubt: 0 },
  columns: { sex: '2' },
};

const api = vi.hoisted(() => ({
  permissions: [] as string[],
  study: vi.fn(async () => ({
    code: 200,
    msg: '',
    data: {
      id: 5,
      studyName: '示例研究',
      myRole: { studyRoleId: 1, roleName: '研究护士', permissions: api.permissions },
    },
  })),
  crfOptions: vi.fn(async () => ({ code: 200, msg: '', data: [{ id: 9, title: '人口学资料', version: 1 }] })),
  crfGet: vi.fn(async () => ({
    code: 200,
    msg: '',
    data: {
      id: 9,
      title: '人口学资料',
      definition: {
        title: '人口学资料',
        option: {},
        children: [
          {
            type: 'radio',
            name: 'sex',
            title: '性别',
            option: { optionsValue: '1,2', optionsText: '男,女' },
            children: [],
          },
        ],
      },
    },
  })),
  formModel: vi.fn(async () => ({
    code: 200,
    msg: '',
    data: {
      baseConfig: [],
      diseases: [{ id: 1, diseaseName: '腰椎管狭窄症', diseaseCode: 'LSS' }],
      enableSerialNumber: true,
      serialPreview: 'LSS-0002',
    },
  })),
  list: vi.fn(async (body: { deleted?: boolean }) => ({
    code: 200,
    msg: '',
    data: { list: [body.deleted ? { ...ROW, deletedAt: '2026-01-03T00:00:00Z' } : ROW], total: 1 },
  })),
  columns: vi.fn(async () => ({
    code: 200,
    msg: '',
    data: [
      { key: 'identificationCode', title: '编号', source: 'base', width: 140 },
      { key: 'subjectName', title: '患者姓名', source: 'base', width: 120 },
      { key: 'gender', title: '性别', source: 'base', width: 120 },
      { key: 'diseaseCode', title: '病种', source: 'base', width: 120 },
      { key: 'sex', title: 'sex', source: 'crf', width: 150 },
    ],
  })),
  setState: vi.fn(async () => ({ code: 200, msg: '操作成功', data: null })),
  remove: vi.fn(async () => ({ code: 200, msg: '删除成功', data: null })),
  restore: vi.fn(async () => ({ code: 200, msg: '恢复成功', data: null })),
}));

vi.mock('../../../api/study.api', () => ({
  studyApi: { get: api.study },
  crfApi: { options: api.crfOptions, get: api.crfGet },
  personnelApi: { sites: vi.fn(async () => Promise.reject(new Error('403'))) },
}));
vi.mock('../../../api/subject.api', async (importOriginal) => ({
  ...(await importOriginal<object>()),
  subjectApi: { formModel: api.formModel },
  subjectRecordApi: {
    list: api.list,
    columns: api.columns,
    setState: api.setState,
    remove: api.remove,
    restore: api.restore,
  },
}));

function Where() {
  return <div data-testid="where">{useLocation().pathname}</div>;
}

function renderPage(permissions: string[]) {
  api.permissions = permissions;
  renderWithProviders(
    <MemoryRouter initialEntries={['/project/5/subject']}>
      <Routes>
        <Route path="/project/:id/subject" element={<SubjectListPage />} />
        <Route path="*" element={<Where />} />
      </Routes>
    </MemoryRouter>,
  );
}

const ALL = ['btn:business.subject.add', 'btn:business.subject.edit', 'btn:business.subject.remove'];

async function row() {
  return waitFor(
    () => {
      const found = screen.getAllByRole('row').find((r) => r.textContent?.includes('LSS-0001'));
      if (!found) throw new Error('no patient row yet');
      return found;
    },
    { timeout: 5000 },
  );
}

/** A row's secondary action, under its 更多 menu. */
async function moreItem(line: HTMLElement, name: string) {
  fireEvent.click(within(line).getByRole('button', { name: '更多' }));
  return screen.findByRole('menuitem', { name });
}

beforeEach(() => useSession.setState({ token: 't', permissions: [], buttonPermissions: [] }));
afterEach(() => {
  cleanup();
  vi.clearAllMocks();
  useSession.setState({ token: null, permissions: [], buttonPermissions: [] });
});

describe('patient list', () => {
  it('SUBJ-01/SUBJ-24: lists the study patients from the v3 POST with the configured columns, progress and state', async () => {
    renderPage(ALL);
    await waitFor(() =>
      expect(api.list).toHaveBeenCalledWith({ pageNum: 1, pageSize: 10, deleted: false, studyId: 5 }),
    );
    expect(api.columns).toHaveBeenCalledWith(5);
    const line = await row();
    // The CRF column shows the choice text once the form definitions have arrived.
    await waitFor(() => {
      const cells = within(line)
        .getAllByRole('cell')
        .map((cell) => cell.textContent);
      expect(cells).toEqual(
        expect.arrayContaining(['LSS-0001', '张三', '男', '腰椎管狭窄症', '女', '1/3', '在组', '系统管理员']),
      );
    });
    // The CRF column is titled by its item, with the form named since 性别 is also a patient field.
    expect(screen.getAllByText('人口学资料 · 性别').length).toBeGreaterThan(0);
  });

  it('study buttons follow the caller study role: without remove rights 删除 is disabled', async () => {
    renderPage(['btn:business.subject.add']);
    const line = await row();
    expect(within(line).getByRole('button', { name: '查看' })).toHaveProperty('disabled', false);
    expect((await moreItem(line, '删除')).getAttribute('aria-disabled')).toBe('true');
    expect(screen.getByRole('menuitem', { name: '编辑' }).getAttribute('aria-disabled')).toBe('true');
    expect(screen.getByRole('menuitem', { name: '操作记录' }).getAttribute('aria-disabled')).not.toBe('true');
    expect(screen.getByRole('button', { name: /添加患者/ })).toHaveProperty('disabled', false);
  });

  it('a study:manage holder may do everything without a study role', async () => {
    useSession.setState({ permissions: ['study:manage'] });
    renderPage([]);
    const line = await row();
    expect((await moreItem(line, '删除')).getAttribute('aria-disabled')).not.toBe('true');
  });

  it('SUBJ-25/SUBJ-26: 退出 asks for a reason and sends { subjectRecordId, state: 2, reason }', async () => {
    renderPage(ALL);
    fireEvent.click(await moreItem(await row(), '状态'));
    const dialog = await screen.findByRole('dialog');
    fireEvent.click(within(dialog).getByRole('radio', { name: '退出' }));
    fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
    await waitFor(() => expect(within(dialog).getByText('请填写退出原因')).toBeTruthy());
    fireEvent.change(within(dialog).getByLabelText('退出原因'), { target: { value: '失访' } });
    fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
    await waitFor(() => expect(api.setState).toHaveBeenCalledWith({ subjectRecordId: 77, state: 2, reason: '失访' }));
  });

  it('SUBJ-27: 删除 says it can be restored, asks for a reason and soft-deletes', async () => {
    renderPage(ALL);
    fireEvent.click(await moreItem(await row(), '删除'));
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByText(/可随时恢复/)).toBeTruthy();
    fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
    await waitFor(() => expect(within(dialog).getByText('请填写删除原因')).toBeTruthy());
    fireEvent.change(within(dialog).getByLabelText('删除原因'), { target: { value: '重复录入' } });
    fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
    await waitFor(() => expect(api.remove).toHaveBeenCalledWith(77, '重复录入'));
  });

  it('deleted patients are listed on request and restored with a reason', async () => {
    renderPage(ALL);
    await row();
    fireEvent.click(screen.getByRole('switch', { name: '显示已删除' }));
    await waitFor(() => expect(api.list).toHaveBeenCalledWith({ pageNum: 1, pageSize: 10, deleted: true, studyId: 5 }));
    await waitFor(() => expect(screen.getByText('已删除')).toBeTruthy());
    fireEvent.click(within(await row()).getByRole('button', { name: '恢复' }));
    const dialog = await screen.findByRole('dialog');
    fireEvent.change(within(dialog).getByLabelText('恢复原因'), { target: { value: '误删' } });
    fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
    await waitFor(() => expect(api.restore).toHaveBeenCalledWith(77, '误删'));
  });

  it('录入 opens the casebook on the CRF page', async () => {
    renderPage(ALL);
    fireEvent.click(within(await row()).getByRole('button', { name: /录入/ }));
    await waitFor(() => expect(screen.getByTestId('where').textContent).toBe('/crf/77'));
  });
});
