import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, screen, within } from '@testing-library/react';
import { MemoryRouter, Route, Routes } from 'react-router';
import { useSession } from '../../../../stores/session.store';
import { renderWithProviders } from '../../../../test/render';
import FollowOverviewPage, { percent } from '.';

const api = vi.hoisted(() => ({
  overview: vi.fn(async () => ({
    code: 200,
    msg: '',
    data: {
      today: '2026-11-25',
      weekStart: '2026-11-23',
      weekEnd: '2026-11-29',
      thisWeek: { total: 4, pending: 2, done: 2 },
      notDue: 0,
      due: 1,
      overdue: 2,
      onTime: 1,
      late: 1,
      missed: 2,
      lost: 1,
      judged: 5,
      onTimeRate: 0.2,
      completionRate: 0.4,
      visits: [
        {
          planId: 1,
          planVisitId: 11,
          planName: '术后随访计划',
          visitName: '术后1月',
          custom: false,
          total: 2,
          pending: 0,
          onTime: 1,
          late: 1,
          missed: 0,
          lost: 0,
          judged: 2,
          onTimeRate: 0.5,
          completionRate: 1,
        },
      ],
      responsible: [{ userId: 7, name: '李护士', weekPending: 1, due: 1, overdue: 2, done: 1, lost: 1, total: 5 }],
      weekVisits: [
        {
          followRecordId: 3,
          subjectId: 2,
          subjectRecordId: 9,
          identificationCode: 'P001',
          subjectName: '张**',
          visitName: '术后1月',
          custom: false,
          plannedDate: '2026-11-25',
          windowStart: '2026-11-24',
          windowEnd: '2026-11-26',
          state: 1,
          stateName: '待随访',
          responsibleUserId: 7,
          responsibleName: '李护士',
        },
      ],
    },
  })),
}));
vi.mock('../../../../api/follow.api', async (importOriginal) => ({
  ...(await importOriginal<object>()),
  followApi: { overview: api.overview },
}));
vi.mock('../../../../api/study.api', () => ({
  studyApi: { get: vi.fn(async () => ({ code: 200, msg: '', data: { id: 5, studyName: '示例', myRole: null } })) },
  personnelApi: { list: vi.fn() },
}));

afterEach(() => {
  cleanup();
  useSession.setState({ token: null });
});

describe('随访概览', () => {
  it('FOLLOW-02: shows this week, waiting, overdue and the rates; counts open 随访记录 filtered', async () => {
    useSession.setState({ token: 't' });
    renderWithProviders(
      <MemoryRouter initialEntries={['/project/5/follow']}>
        <Routes>
          <Route path="/project/:id/follow" element={<FollowOverviewPage />} />
        </Routes>
      </MemoryRouter>,
    );
    const week = await screen.findByRole('group', { name: '本周随访' });
    expect(within(week).getByText('4')).toBeTruthy();
    expect(within(week).getByRole('link', { name: '查看随访记录' }).getAttribute('href')).toBe(
      '/project/5/follow/record?startDate=2026-11-23&endDate=2026-11-29',
    );
    expect(within(screen.getByRole('group', { name: '已超窗' })).getByText('2')).toBeTruthy();
    expect(within(screen.getByRole('group', { name: '完成率' })).getByText('40%')).toBeTruthy();
    expect(screen.getByRole('link', { name: '李护士 已超窗 2' }).getAttribute('href')).toBe(
      '/project/5/follow/record?state=2&responsibleUserId=7',
    );
    expect(screen.getByRole('link', { name: 'P001' }).getAttribute('href')).toBe('/crf/9');
    expect(screen.getByText('张**')).toBeTruthy();
    expect(api.overview).toHaveBeenCalledWith(5);
  });

  it('a rate reads as a percentage with one decimal, or a dash while nothing is judged', () => {
    expect([percent(0.4), percent(1 / 3), percent(null)]).toEqual(['40%', '33.3%', '—']);
  });
});
