import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import type { FollowDraftImpact } from '@ecrf/core';
import { renderWithProviders } from '../../../../../test/render';
import { editsThroughDrafts } from '..';
import { changeText, DraftImpactDialog } from './draft-impact-dialog';

const patient = { subjectRecordId: 9, identificationCode: 'P001', siteName: '中心一', test: false };
const impact: FollowDraftImpact = {
  planId: 3,
  today: '2026-11-22',
  plan: {
    added: [{ name: '术后12月' }],
    removed: [{ id: 13, name: '术后6月' }],
    changed: [{ id: 12, name: '术后3月' }],
  },
  counts: {
    patients: 3,
    affectedPatients: 2,
    unscheduledPatients: 1,
    lockedPatients: 0,
    move: 1,
    add: 1,
    remove: 1,
    stay: 1,
    unchanged: 0,
  },
  move: [
    {
      ...patient,
      subjectId: 1,
      kind: 'move',
      followRecordId: 21,
      planVisitId: 12,
      occurrence: 0,
      visitName: '术后3月',
      fromDate: '2026-12-01',
      toDate: '2027-01-01',
      fromWindow: { before: 7, after: 7 },
      toWindow: { before: 7, after: 7 },
      state: 0,
    },
  ],
  stay: [
    {
      ...patient,
      identificationCode: 'P002',
      test: true,
      subjectId: 2,
      followRecordId: 30,
      visitName: '术后1月',
      plannedDate: '2026-10-01',
      proposedDate: '2026-10-01',
      reason: 'done',
    },
  ],
};

const api = vi.hoisted(() => ({
  draftImpact: vi.fn(),
  publishDraft: vi.fn(async () => ({ code: 200, msg: '发布成功', data: { amendmentId: 4, rescheduledPatients: 2 } })),
  discardDraft: vi.fn(),
}));
vi.mock('../../../../../api/follow.api', async (importOriginal) => ({
  ...(await importOriginal<object>()),
  followApi: api,
}));

afterEach(cleanup);

describe('随访计划草稿：查看影响与发布', () => {
  it('shows the counts, the visits that move and those that stay, and publishes under the amendment’s name', async () => {
    api.draftImpact.mockResolvedValue({ code: 200, msg: '', data: impact });
    const onClose = vi.fn();
    renderWithProviders(
      <DraftImpactDialog studyId={5} plan={{ id: 3, planName: '术后随访计划' }} mayEdit onClose={onClose} />,
    );
    expect(await screen.findByText('发布草稿的影响：术后随访计划')).toBeTruthy();
    const moves = await screen.findByRole('table', { name: '将变化的随访' });
    expect(within(moves).getByText('改期 2026-12-01 → 2027-01-01')).toBeTruthy();
    expect(within(moves).getByText('P001')).toBeTruthy();
    const stays = screen.getByRole('table', { name: '保持不变的随访' });
    expect(within(stays).getByText('已完成')).toBeTruthy();
    expect(within(stays).getByText('测试')).toBeTruthy();
    expect(screen.getByText('术后12月')).toBeTruthy();
    expect(api.draftImpact).toHaveBeenCalledWith(5, 3);

    fireEvent.click(screen.getByRole('button', { name: '发布' }));
    // Dialog names are not unique under test (antd's ids are fixed there): the publish dialog is the one on top.
    await screen.findByText('发布随访计划修订');
    const dialog = screen.getAllByRole('dialog').at(-1)!;
    fireEvent.click(within(dialog).getByRole('button', { name: '发布' }));
    expect(await within(dialog).findByText('请输入修订名称')).toBeTruthy();
    fireEvent.change(within(dialog).getByLabelText('修订名称'), { target: { value: ' 方案修订 v2 ' } });
    fireEvent.click(within(dialog).getByRole('button', { name: '发布' }));
    await waitFor(() => expect(api.publishDraft).toHaveBeenCalledWith({ studyId: 5, planId: 3, name: '方案修订 v2' }));
    await waitFor(() => expect(onClose).toHaveBeenCalled());
  });

  it('reads each change in words, and only a production study edits through drafts', () => {
    expect(changeText({ kind: 'add', fromDate: null, toDate: '2027-09-01' })).toBe('新增 → 2027-09-01');
    expect(changeText({ kind: 'remove', fromDate: '2027-03-01', toDate: null })).toBe('删除 2027-03-01');
    expect([
      editsThroughDrafts({ mode: 'production' }),
      editsThroughDrafts({ mode: 'test' }),
      editsThroughDrafts({}),
    ]).toEqual([true, false, false]);
  });
});
