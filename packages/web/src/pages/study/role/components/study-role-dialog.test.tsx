import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { useSession } from '../../../../stores/session.store';
import { renderWithProviders } from '../../../../test/render';
import { StudyRoleDialog } from './study-role-dialog';

const api = vi.hoisted(() => ({
  tree: vi.fn(async () => ({
    code: 200,
    msg: '',
    data: [
      { key: 'btn', title: '功能权限', children: [{ key: 'btn:business.crf.save', title: '保存表单' }] },
      {
        key: 'crf',
        title: 'CRF权限',
        children: [
          {
            key: 'crf:12',
            title: '基线访视',
            children: [
              { key: 'crf:12:view', title: '查看' },
              { key: 'crf:12:save', title: '录入/保存' },
            ],
          },
        ],
      },
    ],
  })),
  add: vi.fn(async () => ({ code: 200, msg: '新增成功', data: null })),
  update: vi.fn(async () => ({ code: 200, msg: '修改成功', data: null })),
}));
vi.mock('../../../../api/study.api', () => ({ studyRoleApi: api }));

beforeEach(() => useSession.setState({ permissions: ['study:role'] }));
afterEach(() => {
  cleanup();
  vi.clearAllMocks();
  useSession.setState({ permissions: [] });
});

describe('study role dialog', () => {
  it('STUDY-14/STUDY-15: the ticked leaves are sent as permissions; headings and CRF nodes are not', async () => {
    const onClose = vi.fn();
    renderWithProviders(<StudyRoleDialog studyId={5} state={{ mode: 'add' }} onClose={onClose} />);
    fireEvent.change(screen.getByLabelText('角色名称'), { target: { value: '数据录入员' } });
    fireEvent.click(await screen.findByText('保存表单'));
    fireEvent.click(screen.getByText('CRF权限'));
    fireEvent.click(screen.getByText('录入/保存'));
    fireEvent.click(screen.getByRole('button', { name: '确定' }));
    await waitFor(() =>
      expect(api.add).toHaveBeenCalledWith({
        studyId: 5,
        roleName: '数据录入员',
        permissions: ['btn:business.crf.save', 'crf:12:view'],
      }),
    );
    expect(onClose).toHaveBeenCalled();
  });

  it('editing starts from the permissions the role holds', async () => {
    const role = {
      id: 3,
      studyId: 5,
      roleName: '监查员',
      remark: null,
      permissions: ['crf:12:view'],
      memberCount: 0,
      createTime: '',
    };
    renderWithProviders(<StudyRoleDialog studyId={5} state={{ mode: 'edit', role }} onClose={() => undefined} />);
    await screen.findByText('保存表单');
    fireEvent.click(screen.getByRole('button', { name: '确定' }));
    await waitFor(() =>
      expect(api.update).toHaveBeenCalledWith({
        id: 3,
        roleName: '监查员',
        remark: null,
        permissions: ['crf:12:view'],
      }),
    );
  });
});
