import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, screen, waitFor } from '@testing-library/react';
import { MemoryRouter, Route, Routes } from 'react-router';
import { useAppStore } from '../../../stores/app.store';
import { useSession } from '../../../stores/session.store';
import { renderWithProviders } from '../../../test/render';
import ProjectHomePage from '.';

const api = vi.hoisted(() => ({
  index: vi.fn(async () => ({
    code: 200,
    msg: '',
    data: {
      subjects: { total: 7, active: 4, completed: 2, withdrawn: 1, thisMonth: 3 },
      forms: { incomplete: 5, submitted: 11, doubt: 1 },
      doubts: { open: 2, replied: 0, closed: 1 },
      enrolment: [{ month: '2026-01', count: 7 }],
    },
  })),
  study: vi.fn(async () => ({
    code: 200,
    msg: '',
    data: {
      id: 5,
      studyName: '腰椎管狭窄症手术登记研究（示例）',
      studyCode: 'DEMO-LSS',
      principal: '示例研究者',
      description: '多中心登记',
      myRole: null,
    },
  })),
}));
vi.mock('../../../api/subject.api', async (importOriginal) => ({
  ...(await importOriginal<object>()),
  studyHomeApi: { index: api.index },
}));
vi.mock('../../../api/study.api', () => ({ studyApi: { get: api.study } }));
vi.mock('./components/enrolment-chart', () => ({
  default: ({ series }: { series: Array<{ month: string; count: number }> }) => (
    <div data-testid="chart">{series.map((e) => `${e.month}:${e.count}`).join(',')}</div>
  ),
}));

function renderHome() {
  renderWithProviders(
    <MemoryRouter initialEntries={['/project/5/home']}>
      <Routes>
        <Route path="/project/:id/home" element={<ProjectHomePage />} />
      </Routes>
    </MemoryRouter>,
  );
}

afterEach(() => {
  cleanup();
  vi.clearAllMocks();
  useSession.setState({ token: null });
  useAppStore.setState({ studyName: null });
});

describe('study home', () => {
  it('STUDY-09: signed in, it reads GET /api/business/index and shows the figures and the enrolment chart', async () => {
    useSession.setState({ token: 't' });
    renderHome();
    await waitFor(() => expect(api.index).toHaveBeenCalledWith(5));
    const figure = (label: string) => screen.getByRole('group', { name: label }).textContent;
    await waitFor(() => expect(figure('患者总数')).toContain('7'));
    expect(figure('在组')).toContain('4');
    expect(figure('完成')).toContain('2');
    expect(figure('退出')).toContain('1');
    expect(figure('本月入组')).toContain('3');
    expect(figure('未完成表单')).toContain('5');
    expect(figure('已提交表单')).toContain('11');
    expect(figure('待处理质疑')).toContain('2');
    expect(await screen.findByText('腰椎管狭窄症手术登记研究（示例）')).toBeTruthy();
    expect((await screen.findByTestId('chart')).textContent).toContain('2026-01:7');
  });

  it('without a session it asks to sign in, shows the study name it knows, and reads no figures', async () => {
    useAppStore.setState({ studyName: '腰椎管狭窄症手术登记研究（示例）' });
    renderHome();
    expect(screen.getByText('请登录后查看')).toBeTruthy();
    expect(screen.getByText('腰椎管狭窄症手术登记研究（示例）')).toBeTruthy();
    expect(screen.getByRole('link').getAttribute('href')).toBe('/login');
    expect(api.index).not.toHaveBeenCalled();
    expect(api.study).not.toHaveBeenCalled();
  });
});
