import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { MemoryRouter, Route, Routes, useLocation } from 'react-router';
import type { DoubleEntryPair } from '../../../api/double-entry.api';
import { renderWithProviders } from '../../../test/render';
import { DoubleEntryListPanel, pairUrl } from './double-entry-panel';

const PENDING: DoubleEntryPair = {
  subjectRecordId: 3,
  crfId: 4,
  crfDataRecordId: null,
  identificationCode: 'LSS-001',
  subjectName: '张*',
  deptId: 2,
  siteName: '甲中心',
  crfTitle: '生命体征',
  entry1: { userId: 5, userName: '王护士', state: 'done' },
  entry2: { userId: 6, userName: '李护士', state: 'done' },
  status: 'pending',
  updateDate: '2026-11-22T08:00:00Z',
};
const TYPING: DoubleEntryPair = {
  ...PENDING,
  subjectRecordId: 7,
  identificationCode: 'LSS-002',
  entry1: { userId: 5, userName: '王护士', state: 'draft' },
  entry2: null,
  status: 'entry1',
};

const api = vi.hoisted(() => ({
  pending: vi.fn(async (_filter: object) => ({ code: 200, msg: '', data: { list: [] as unknown[], total: 0 } })),
}));
vi.mock('../../../api/double-entry.api', async (importOriginal) => ({
  ...(await importOriginal<object>()),
  doubleEntryApi: api,
}));

afterEach(() => {
  cleanup();
  vi.clearAllMocks();
});

function Where() {
  const location = useLocation();
  return <div data-testid="where">{`${location.pathname}${location.search}`}</div>;
}

const renderPanel = () =>
  renderWithProviders(
    <MemoryRouter initialEntries={['/project/9/doubt']}>
      <Routes>
        <Route path="/project/9/doubt" element={<DoubleEntryListPanel studyId={9} />} />
        <Route path="/crf/:id" element={<Where />} />
      </Routes>
    </MemoryRouter>,
  );

describe('issue 37 双份录入 tab: the reconciler’s list', () => {
  it('lists the pairs with entries and status; 核对 opens the patient’s form', async () => {
    api.pending.mockResolvedValue({ code: 200, msg: '', data: { list: [PENDING, TYPING], total: 2 } });
    renderPanel();
    const row = (await screen.findByText('LSS-001')).closest('tr')!;
    expect(within(row).getByText('待核对')).toBeTruthy();
    expect(within(row).getByText('甲中心')).toBeTruthy();
    expect(within(row).getAllByText('已完成')).toHaveLength(2);
    const other = screen.getByText('LSS-002').closest('tr')!;
    expect(within(other).getByText('第一次录入中')).toBeTruthy();
    expect(within(other).getByText('录入中')).toBeTruthy();
    expect(within(other).getByText('未开始')).toBeTruthy();
    expect(api.pending).toHaveBeenCalledWith({ studyId: 9, pageNum: 1, pageSize: 10 });
    fireEvent.click(within(row).getByRole('button', { name: '核对' }));
    expect((await screen.findByTestId('where')).textContent).toBe('/crf/3?crfId=4');
  });

  it('filters by status on the server', async () => {
    renderPanel();
    await waitFor(() => expect(api.pending).toHaveBeenCalledTimes(1));
    fireEvent.mouseDown(screen.getByRole('combobox', { name: '状态' }));
    fireEvent.click(await screen.findByTitle('待核对'));
    await waitFor(() =>
      expect(api.pending).toHaveBeenLastCalledWith({ studyId: 9, status: 'pending', pageNum: 1, pageSize: 10 }),
    );
  });

  it('a pair of a stored record opens that record', () => {
    expect(pairUrl({ subjectRecordId: 3, crfId: 4, crfDataRecordId: 8 })).toBe('/crf/3?crfId=4&crfDataRecordId=8');
  });
});
