import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { MemoryRouter, Route, Routes } from 'react-router';
import type { FollowPlanRow, FollowRecord } from '../../../api/follow.api';
import { useSession } from '../../../stores/session.store';
import { renderWithProviders } from '../../../test/render';
import FollowPlanPage from './plan';
import FollowRecordPage from './record';

/** Visit n of 25 (P001..P025), 待随访 until marked. */
const visit = (n: number, marks: Map<number, string>): FollowRecord =>
  ({
    followRecordId: n,
    subjectId: n,
    subjectRecordId: 100 + n,
    identificationCode: `P${String(n).padStart(3, '0')}`,
    subjectName: `患者${n}`,
    visitName: '术后1月',
    custom: false,
    plannedDate: '2026-11-25',
    windowStart: '2026-11-24',
    windowEnd: '2026-11-26',
    state: marks.has(n) ? 5 : 1,
    stateName: marks.has(n) ? '失访' : '待随访',
    responsibleUserId: null,
    responsibleName: '',
    completedOn: null,
    markReason: marks.get(n) ?? '',
    crfs: [],
  }) as unknown as FollowRecord;

const api = vi.hoisted(() => {
  const marks = new Map<number, string>();
  return {
    marks,
    records: vi.fn(),
    plans: vi.fn(),
    setStatus: vi.fn(async (body: { followRecordId: number; action: string; reason: string }) => {
      if (body.action === 'lost') marks.set(body.followRecordId, body.reason);
      return { code: 200, msg: '', data: null };
    }),
  };
});
vi.mock('../../../api/follow.api', async (importOriginal) => ({
  ...(await importOriginal<object>()),
  followApi: {
    records: api.records,
    plans: api.plans,
    setStatus: api.setStatus,
    crfs: vi.fn(async () => ({ code: 200, msg: '', data: [] })),
  },
}));
vi.mock('../../../api/study.api', () => ({
  studyApi: { get: vi.fn(async () => ({ code: 200, msg: '', data: { id: 5, studyName: '示例', myRole: null } })) },
  personnelApi: { list: vi.fn(async () => ({ code: 200, msg: '', data: { list: [], total: 0 } })) },
}));

api.records.mockImplementation(async (query: { pageNum: number; pageSize: number }) => {
  const all = Array.from({ length: 25 }, (_, i) => visit(i + 1, api.marks));
  const start = (query.pageNum - 1) * query.pageSize;
  return { code: 200, msg: '', data: { list: all.slice(start, start + query.pageSize), total: all.length } };
});
api.plans.mockImplementation(async () => ({
  code: 200,
  msg: '',
  data: {
    list: [
      {
        id: 1,
        studyId: 5,
        planName: '术后随访计划',
        diseaseCode: null,
        remark: '',
        visitCount: 2,
        visitNames: ['术后1月', '术后3月'],
        hasDraft: false,
        updateBy: '管理员',
        updateTime: '2026-11-01 10:00:00',
      } satisfies FollowPlanRow,
    ],
    total: 1,
  },
}));

afterEach(() => {
  cleanup();
  useSession.setState({ token: null, permissions: [] });
});

function renderBoth() {
  useSession.setState({ token: 't', permissions: ['*:*:*'] });
  renderWithProviders(
    <MemoryRouter initialEntries={['/project/5/follow']}>
      <Routes>
        <Route
          path="/project/:id/follow"
          element={
            <>
              <section aria-label="records">
                <FollowRecordPage />
              </section>
              <section aria-label="plans">
                <FollowPlanPage />
              </section>
            </>
          }
        />
      </Routes>
    </MemoryRouter>,
  );
  return {
    records: () => screen.getByRole('region', { name: 'records' }),
    plans: () => screen.getByRole('region', { name: 'plans' }),
  };
}

// The spec's follow store (record list and plan list each with page and list, follow crfs, subject follows, mark
// status, follow crf model) is held as TanStack queries under queryKeys.follow, one per list; see docs/decisions.md.
describe('follow-up state (forms §3)', () => {
  it('FOLLOW-04: the record list and the plan list each keep their own page and list', async () => {
    const { records, plans } = renderBoth();
    await within(records()).findByText('P001');
    await within(plans()).findByText('术后随访计划');
    fireEvent.click(within(records()).getByTitle('2'));
    await within(records()).findByText('P011');
    expect(within(records()).queryByText('P001')).toBeNull();
    expect(api.records).toHaveBeenLastCalledWith(expect.objectContaining({ studyId: 5, pageNum: 2 }));
    // The plan list stays on its own first page with its own rows.
    expect(api.plans.mock.calls.every(([q]) => (q as { pageNum: number }).pageNum === 1)).toBe(true);
    expect(within(plans()).getByText('术后随访计划')).toBeTruthy();
  });

  it('FOLLOW-04: marking a visit 失访 updates its mark status and reason in the record list', async () => {
    const { records } = renderBoth();
    const row = (await within(records()).findByText('P003')).closest('tr')!;
    expect(within(row).getByText('待随访')).toBeTruthy();
    fireEvent.click(within(row).getByRole('button', { name: '失访' }));
    const dialog = await screen.findByRole('dialog');
    fireEvent.change(within(dialog).getByLabelText('原因'), { target: { value: '电话无法联系' } });
    fireEvent.click(within(dialog).getByRole('button', { name: /确\s*定/ }));
    await waitFor(() =>
      expect(api.setStatus).toHaveBeenCalledWith({ followRecordId: 3, action: 'lost', reason: '电话无法联系' }),
    );
    const marked = (await within(records()).findByText('电话无法联系')).closest('tr')!;
    expect(within(marked).getByText('P003')).toBeTruthy();
    expect(within(marked).getByText('失访')).toBeTruthy();
  });
});
