import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, screen, waitFor } from '@testing-library/react';
import { MemoryRouter, Route, Routes } from 'react-router';
import { renderWithProviders } from '../../test/render';
import CrfDetailPage from './detail';

const api = vi.hoisted(() => ({
  get: vi.fn(async (id: number, version?: number) => ({
    code: 200,
    msg: '',
    data: {
      id,
      studyId: 5,
      title: '生命体征',
      version: version ?? 2,
      definition: {
        title: '生命体征',
        option: {},
        children: [{ name: 'sbp', title: '收缩压', type: 'int', option: { units: 'mmHg' }, children: [] }],
      },
      versions: [
        { version: 2, source: 'json', creater: '管理员', createTime: '2026-02-01T00:00:00Z' },
        { version: 1, source: 'json', creater: '管理员', createTime: '2026-01-01T00:00:00Z' },
      ],
    },
  })),
}));
vi.mock('../../api/study.api', () => ({ crfApi: { get: api.get } }));

afterEach(() => {
  cleanup();
  vi.clearAllMocks();
});

describe('CRF detail page', () => {
  it('CRF-01: /crf/detail/{crfId} shows the CRF as laid out, read-only, in its newest version', async () => {
    renderWithProviders(
      <MemoryRouter initialEntries={['/crf/detail/3']}>
        <Routes>
          <Route path="/crf/detail/:crfId" element={<CrfDetailPage />} />
        </Routes>
      </MemoryRouter>,
    );
    await screen.findByText('生命体征', { selector: '.page-title' });
    await waitFor(() => expect((screen.getByLabelText('收缩压') as HTMLInputElement).disabled).toBe(true));
    expect(api.get).toHaveBeenCalledWith(3, undefined);
  });
});
