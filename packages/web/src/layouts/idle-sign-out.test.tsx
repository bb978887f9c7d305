import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { act, cleanup, fireEvent, screen } from '@testing-library/react';
import { renderWithProviders } from '../test/render';
import { IdleSignOut } from './idle-sign-out';
import { heartbeatMs, idlePhase, LAST_ACTIVITY_KEY, resetActivity } from './idle-timer';

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'setTimeout', 'clearTimeout', 'Date'] });
  vi.setSystemTime(new Date('2026-11-22T08:00:00Z'));
  resetActivity();
});
afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

const advance = (ms: number) => {
  act(() => {
    vi.advanceTimersByTime(ms);
  });
};
/** The open warning (a closed antd dialog stays in the document, hidden). */
const warning = () => {
  const dialog = screen.queryByRole('dialog', { name: '即将自动退出' });
  return dialog && !dialog.closest('[style*="display: none"]') ? dialog : null;
};

function mount(idleMinutes = 2) {
  const onExpire = vi.fn();
  const ping = vi.fn(async () => null);
  renderWithProviders(<IdleSignOut idleMinutes={idleMinutes} onExpire={onExpire} ping={ping} />);
  return { onExpire, ping };
}

describe('idle phase', () => {
  it('is active until a minute before the limit, then warns with the seconds left, then is over', () => {
    const limit = 30 * 60_000;
    expect(idlePhase(0, 29 * 60_000 - 1, limit)).toEqual({ kind: 'active' });
    expect(idlePhase(0, 29 * 60_000, limit)).toEqual({ kind: 'warning', secondsLeft: 60 });
    expect(idlePhase(0, 30 * 60_000 - 1500, limit)).toEqual({ kind: 'warning', secondsLeft: 2 });
    expect(idlePhase(0, 30 * 60_000, limit)).toEqual({ kind: 'expired' });
  });

  it('heartbeats a third of the limit apart, between 20 seconds and 5 minutes', () => {
    expect(heartbeatMs(60_000)).toBe(20_000);
    expect(heartbeatMs(6 * 60_000)).toBe(120_000);
    expect(heartbeatMs(30 * 60_000)).toBe(300_000);
  });
});

describe('idle sign-out in the shell', () => {
  it('warns 即将自动退出 one minute before the limit, and signs out at the limit', () => {
    const { onExpire } = mount(2);
    advance(59_000);
    expect(warning()).toBeNull();
    advance(2_000);
    expect(warning()).not.toBeNull();
    expect(screen.getByRole('timer').textContent).toContain('秒后自动退出登录');
    advance(60_000);
    expect(onExpire).toHaveBeenCalledTimes(1);
  });

  it('继续使用 carries on: the warning closes, the server is told, and the limit starts again', () => {
    const { onExpire, ping } = mount(2);
    advance(61_000);
    fireEvent.click(screen.getByRole('button', { name: '继续使用' }));
    expect(ping).toHaveBeenCalled();
    advance(1_000);
    expect(warning()).toBeNull();
    advance(58_000);
    expect(onExpire).not.toHaveBeenCalled();
    advance(62_000);
    expect(onExpire).toHaveBeenCalledTimes(1);
  });

  it('input on the page counts as activity, but not while the warning is open', () => {
    const { onExpire } = mount(2);
    advance(50_000);
    fireEvent.keyDown(window, { key: 'a' });
    advance(59_000);
    expect(warning()).toBeNull();
    advance(2_000);
    expect(warning()).not.toBeNull();
    fireEvent.pointerMove(window);
    advance(60_000);
    expect(onExpire).toHaveBeenCalledTimes(1);
  });

  it('activity in another tab of the browser keeps this one signed in', () => {
    const { onExpire } = mount(2);
    advance(100_000);
    expect(warning()).not.toBeNull();
    window.localStorage.setItem(LAST_ACTIVITY_KEY, String(Date.now()));
    advance(30_000);
    expect(onExpire).not.toHaveBeenCalled();
    expect(warning()).toBeNull();
  });

  it('tells the server now and then while the person is active', () => {
    const { ping } = mount(2);
    for (let i = 0; i < 5; i++) {
      advance(10_000);
      fireEvent.keyDown(window, { key: 'a' });
    }
    advance(1_000);
    expect(ping).toHaveBeenCalled();
  });
});
