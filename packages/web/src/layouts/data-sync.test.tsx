import { afterEach, describe, expect, it, vi } from 'vitest';
import { act, cleanup, render, waitFor } from '@testing-library/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { dispatchPush } from '../realtime/realtime-events';
import { useAppStore } from '../stores/app.store';
import { useSession } from '../stores/session.store';
import { DataSync } from './data-sync';

const api = vi.hoisted(() => ({ search: vi.fn(), addDataChange: vi.fn() }));
vi.mock('../api/global-search.api', () => ({ globalSearchApi: api }));

afterEach(() => {
  cleanup();
  api.addDataChange.mockReset();
  useAppStore.setState({ dataSyncScope: [], studyId: null });
});

function mount() {
  const client = new QueryClient();
  const invalidate = vi.spyOn(client, 'invalidateQueries');
  render(
    <QueryClientProvider client={client}>
      <DataSync />
    </QueryClientProvider>,
  );
  return invalidate;
}

describe('data-change scopes in the shell', () => {
  it('SHELL-30, SHELL-32: scopes put in the app state are posted with the current study and cleared', async () => {
    api.addDataChange.mockResolvedValue({ code: 200, msg: '', data: { id: 1, scopes: ['subjectRecord'] } });
    useAppStore.setState({ studyId: '4' });
    mount();
    act(() => useAppStore.getState().setDataSyncScope(['subjectRecord', 'follow']));
    await waitFor(() => expect(api.addDataChange).toHaveBeenCalledWith(['subjectRecord', 'follow'], 4));
    expect(useAppStore.getState().dataSyncScope).toEqual([]);
  });

  it('SHELL-32: another user’s change reads those scopes again; the user’s own change is ignored', () => {
    useSession.setState({ user: { userId: 9 } as never });
    const invalidate = mount();
    act(() => dispatchPush('data.changed', { studyId: 4, scopes: ['subjectRecord', 'notices'], by: 2 }));
    expect(invalidate).toHaveBeenCalledWith({ queryKey: ['subjectRecord'] });
    expect(invalidate).toHaveBeenCalledWith({ queryKey: ['notices'] });
    invalidate.mockClear();
    act(() => dispatchPush('data.changed', { studyId: 4, scopes: ['subjectRecord'], by: 9 }));
    expect(invalidate).not.toHaveBeenCalled();
  });
});
