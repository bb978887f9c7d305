import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { MemoryRouter, Route, Routes } from 'react-router';
import { useSession } from '../../../stores/session.store';
import { renderWithProviders } from '../../../test/render';
import type { ImpactSummary } from '../../../api/amendment.api';
import AmendmentImpactPage from './impact';

const SUMMARY: ImpactSummary = {
  crfId: 9,
  fromVersion: 1,
  toVersion: 2,
  diff: {
    added: [{ name: 'temp', label: '体温', type: 'number' }],
    removed: [{ name: 'hr', label: '心率' }],
    renamed: [],
    retyped: [{ name: 'sbp', label: '收缩压', fromType: 'input', toType: 'number' }],
  },
  records: { total: 12, submitted: 7, signed: 3, sdvVerified: 2, locked: 1, changed: 5, unchanged: 7 },
  findings: [
    { kind: 'removed', itemName: 'hr', label: '心率', count: 10 },
    { kind: 'outOfRange', itemName: 'sbp', label: '收缩压', count: 4 },
  ],
};

const api = vi.hoisted(() => ({
  impact: vi.fn(),
  impactRecords: vi.fn(),
  impactExport: vi.fn(),
  list: vi.fn(),
  publish: vi.fn(),
  migrate: vi.fn(),
  job: vi.fn(),
}));
vi.mock('../../../api/amendment.api', async (importOriginal) => ({
  ...(await importOriginal<object>()),
  amendmentApi: api,
}));
vi.mock('../../../api/study.api', () => ({
  crfApi: { get: vi.fn(async () => ({ code: 200, msg: '', data: { id: 9, title: '生命体征', version: 1 } })) },
  personnelApi: { sites: vi.fn(async () => ({ code: 200, msg: '', data: [] })) },
}));

const ROW = {
  crfDataRecordId: 31,
  subjectRecordId: 4,
  identificationCode: 'P001',
  siteName: '甲医院',
  itemName: 'sbp',
  label: '收缩压',
  kind: 'outOfRange' as const,
  oldValue: 260,
  newValue: 260,
  submitted: true,
  signed: true,
  sdvVerified: false,
  locked: false,
};

function renderAt(path: string) {
  return renderWithProviders(
    <MemoryRouter initialEntries={[path]}>
      <Routes>
        <Route path="/study/amendment/impact" element={<AmendmentImpactPage />} />
        <Route path="/study/config" element={<div>项目配置页</div>} />
      </Routes>
    </MemoryRouter>,
  );
}

const countOf = (label: string) => within(screen.getByRole('group', { name: label })).getByText(/\d+/).textContent;

afterEach(() => {
  cleanup();
  vi.clearAllMocks();
  useSession.setState({ permissions: [] });
});

describe('影响报告', () => {
  it('a draft’s report shows the item and record counts and the findings per kind and item; 查看记录 drills down', async () => {
    useSession.setState({ permissions: ['study:crf'] });
    api.impact.mockResolvedValue({ code: 200, msg: '', data: SUMMARY });
    api.impactRecords.mockResolvedValue({ list: [ROW], total: 1 });
    renderAt('/study/amendment/impact?studyId=5&crfId=9');

    await screen.findByText('影响报告 · 生命体征');
    expect(screen.getByText('发布草稿（第 1 版 → 第 2 版）对已有数据的影响')).toBeTruthy();
    expect(api.impact).toHaveBeenCalledWith({ studyId: 5, crfId: 9 });
    expect(countOf('新增题目')).toBe('1');
    expect(countOf('删除题目')).toBe('1');
    expect(countOf('重命名题目')).toBe('0');
    expect(countOf('类型变更')).toBe('1');
    expect(countOf('记录总数')).toBe('12');
    expect(countOf('已提交')).toBe('7');
    expect(countOf('已签名')).toBe('3');
    expect(countOf('已SDV')).toBe('2');
    expect(countOf('已锁定')).toBe('1');
    expect(countOf('数据将变化')).toBe('5');
    expect(countOf('数据不变')).toBe('7');
    expect(screen.getByText('体温（temp）')).toBeTruthy();
    expect(screen.getByText('收缩压（sbp）：input → number')).toBeTruthy();

    const findings = screen.getByRole('region', { name: '影响明细' });
    const removed = within(findings).getByText('题目已删除（数据保留在历史中）').closest('tr')!;
    expect(within(removed as HTMLElement).getByText('心率')).toBeTruthy();
    expect(within(removed as HTMLElement).getByText('10')).toBeTruthy();
    const range = within(findings).getByText('超出新范围').closest('tr')!;
    expect(within(range as HTMLElement).getByText('4')).toBeTruthy();

    fireEvent.click(screen.getByRole('button', { name: '查看记录 超出新范围 收缩压' }));
    await screen.findByText('受影响的记录 · 超出新范围 · 收缩压');
    await waitFor(() =>
      expect(api.impactRecords).toHaveBeenLastCalledWith(
        { studyId: 5, crfId: 9 },
        { kind: 'outOfRange', itemName: 'sbp', pageNum: 1, pageSize: 10 },
      ),
    );
    const records = screen.getByRole('region', { name: '受影响的记录' });
    await within(records).findByText('P001');
    expect(within(records).getByText('甲医院')).toBeTruthy();
    expect(within(records).getAllByText('260')).toHaveLength(2);
    expect(within(records).getByText('已签名')).toBeTruthy();
    // A draft's records are not ticked: nothing moves before publishing.
    expect(within(records).queryByRole('checkbox')).toBeNull();
  });

  it('发布 asks for a 修订名称 and publishes the draft under it, then shows the amendment’s report', async () => {
    useSession.setState({ permissions: ['study:crf'] });
    api.impact.mockResolvedValue({ code: 200, msg: '', data: SUMMARY });
    api.impactRecords.mockResolvedValue({ list: [], total: 0 });
    api.list.mockResolvedValue({
      code: 200,
      msg: '',
      data: [
        {
          id: 77,
          name: '方案 2.0 版修订',
          kind: 'crf',
          crfId: 9,
          crfTitle: '生命体征',
          followPlanId: null,
          fromVersion: 1,
          toVersion: 2,
          createdAt: '2026-01-05 10:00:00',
          createdByName: '管理员',
          report: null,
          remaining: 12,
        },
      ],
    });
    api.publish.mockResolvedValue({ code: 200, msg: '发布成功', data: { amendmentId: 77, version: 2 } });
    renderAt('/study/amendment/impact?studyId=5&crfId=9&publish=1');

    // In tests every antd id is the same (test-id), so the dialog is found by its role and read by its title.
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByText('发布草稿')).toBeTruthy();
    expect(within(dialog).getByText('已有记录 12 条，迁移后数据将变化 5 条。')).toBeTruthy();
    fireEvent.click(within(dialog).getByRole('button', { name: '发布' }));
    await within(dialog).findByText('请填写修订名称');
    expect(api.publish).not.toHaveBeenCalled();

    fireEvent.change(within(dialog).getByLabelText('修订名称'), { target: { value: ' 方案 2.0 版修订 ' } });
    fireEvent.click(within(dialog).getByRole('button', { name: '发布' }));
    await waitFor(() => expect(api.publish).toHaveBeenCalledWith({ studyId: 5, crfId: 9, name: '方案 2.0 版修订' }));
    await screen.findByText('方案修订“方案 2.0 版修订”（第 1 版 → 第 2 版）：尚未迁移的记录');
    expect(api.impact).toHaveBeenLastCalledWith({ studyId: 5, amendmentId: 77 });
    expect(screen.getByRole('button', { name: '迁移数据' })).toBeTruthy();
  });
});
