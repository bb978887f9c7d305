import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { renderWithProviders } from '../../test/render';
import { MessageOptOutCard } from './message-opt-out';

const api = vi.hoisted(() => ({
  optedOut: false,
  messageOptState: vi.fn(async () => ({
    optedOut: api.optedOut,
    source: api.optedOut ? 'patient' : null,
    reason: null,
    createTime: null,
  })),
  optOutMessages: vi.fn(async () => {
    api.optedOut = true;
    return null;
  }),
}));

vi.mock('../../api/patient.api', async (importOriginal) => ({
  ...(await importOriginal<object>()),
  patientApi: { messageOptState: api.messageOptState, optOutMessages: api.optOutMessages },
  patientToken: { get: () => 'patient-token', set: () => undefined, clear: () => undefined },
}));

afterEach(() => {
  cleanup();
  vi.clearAllMocks();
  api.optedOut = false;
});

describe('消息提醒 on the patient’s phone (issue 38)', () => {
  it('the patient opts out after a confirm and then reads 已退订', async () => {
    renderWithProviders(<MessageOptOutCard />);
    expect(await screen.findByText('您会收到随访提醒和问卷邀请。')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: '退订提醒' }));
    fireEvent.click(await screen.findByRole('button', { name: '确定退订' }));
    await waitFor(() => expect(api.optOutMessages).toHaveBeenCalledTimes(1));
    expect(await screen.findByText('已退订')).toBeTruthy();
    expect(screen.queryByRole('button', { name: '退订提醒' })).toBeNull();
  });

  it('an opted-out patient is told so, with no button', async () => {
    api.optedOut = true;
    renderWithProviders(<MessageOptOutCard />);
    expect(await screen.findByText(/您已退订提醒/)).toBeTruthy();
    expect(screen.queryByRole('button', { name: '退订提醒' })).toBeNull();
  });
});
