import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import { useAppStore } from '../../../stores/app.store';
import { renderWithProviders } from '../../../test/render';
import MedicalPage from '.';

const RECORD = {
  id: 8,
  subjectId: 41,
  identificationCode: 'LSS-0001',
  subjectName: '赵建国',
  title: '第一次住院出院小结',
  category: '出院小结',
  visitDate: '2026-01-02',
  hospital: null,
  note: null,
  files: [],
  crfDataRecordId: null,
  crfId: null,
  crfTitle: null,
  createTime: '2026-01-02T03:04:05Z',
};

const api = vi.hoisted(() => ({
  permissions: [] as string[],
  allMine: vi.fn(async () => ({ code: 200, msg: '', data: { list: [{ id: 5, studyName: '示例研究' }], total: 1 } })),
  study: vi.fn(async () => ({
    code: 200,
    msg: '',
    data: { id: 5, studyName: '示例研究', myRole: { permissions: api.permissions } },
  })),
  list: vi.fn(async (_params: Record<string, unknown>) => ({ code: 200, msg: '', data: { list: [RECORD], total: 1 } })),
}));

vi.mock('../../../api/study.api', () => ({ studyApi: { allMine: api.allMine, get: api.study } }));
vi.mock('../../../api/content.api', () => ({ medicalApi: { list: api.list } }));

function renderPage(permissions: string[]) {
  api.permissions = permissions;
  useAppStore.setState({ studyId: '5' });
  renderWithProviders(<MedicalPage />);
}

afterEach(() => {
  cleanup();
  vi.clearAllMocks();
  useAppStore.setState({ studyId: null });
});

describe('病历管理', () => {
  it('KNOW-08: lists the records with their link state and offers 编辑, 关联表单 and 删除 to editors', async () => {
    renderPage(['btn:project.medical.view', 'btn:project.medical.edit']);
    const line = await waitFor(() => {
      const found = screen.getAllByRole('row').find((r) => r.textContent?.includes('第一次住院出院小结'));
      if (!found) throw new Error('no record row yet');
      return found;
    });
    expect(api.list).toHaveBeenCalledWith({ studyId: 5, pageNum: 1, pageSize: 10 });
    expect(within(line).getByText('未关联')).toBeTruthy();
    expect(within(line).getByText('赵建国')).toBeTruthy();
    for (const name of ['编辑', '关联表单', '删除']) {
      expect(within(line).getByRole('button', { name: new RegExp(name) })).toHaveProperty('disabled', false);
    }
  });

  it('without 查看病历资料 the list is not asked for', async () => {
    renderPage(['btn:project.medical.edit']);
    await waitFor(() => expect(api.study).toHaveBeenCalled());
    await screen.findByRole('button', { name: /新增病历资料/ });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(api.list).not.toHaveBeenCalled();
  });
});
