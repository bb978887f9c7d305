import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, screen, waitFor } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { renderWithProviders } from '../test/render';
import { useSession } from '../stores/session.store';
import { SaeCountButton } from './sae-count-button';

const api = vi.hoisted(() => ({
  role: { permissions: ['btn:business.safety'] as string[] },
  count: vi.fn(async (_studyId: number) => ({ code: 200, msg: '', data: { pending: 2 } })),
}));
vi.mock('../api/safety.api', () => ({ safetyApi: { count: api.count } }));
vi.mock('../api/study.api', () => ({
  studyApi: { get: vi.fn(async (id: number) => ({ code: 200, msg: '', data: { id, myRole: api.role } })) },
}));

afterEach(() => {
  cleanup();
  vi.clearAllMocks();
  api.role.permissions = ['btn:business.safety'];
  useSession.setState({ permissions: [], buttonPermissions: [] });
});

const renderButton = () =>
  renderWithProviders(
    <MemoryRouter>
      <SaeCountButton studyId={9} />
    </MemoryRouter>,
  );

describe('the top bar’s SAE count', () => {
  it('shows a holder of 安全性报告 the pending reports', async () => {
    renderButton();
    expect(await screen.findByRole('button', { name: '待提交SAE报告 2 份' })).toBeTruthy();
    expect(api.count).toHaveBeenCalledWith(9);
  });

  it('asks nothing and shows nothing without the key', async () => {
    api.role.permissions = ['btn:business.subject.add'];
    renderButton();
    await waitFor(() => expect(screen.queryByRole('button')).toBeNull());
    expect(api.count).not.toHaveBeenCalled();
  });

  it('shows nothing while no report is pending', async () => {
    api.count.mockResolvedValueOnce({ code: 200, msg: '', data: { pending: 0 } });
    renderButton();
    await waitFor(() => expect(api.count).toHaveBeenCalled());
    expect(screen.queryByRole('button')).toBeNull();
  });
});
