import { useCallback, useEffect, useRef, useState } from 'react';
import { Button, Modal } from 'antd';
import { SECURITY_TEXT } from '../locales/security.zh-CN';
import { heartbeatMs, idlePhase, lastActivity, markActivity, type IdlePhase } from './idle-timer';

const ACTIVITY_EVENTS = ['pointerdown', 'pointermove', 'keydown', 'wheel', 'touchstart'] as const;
const TICK_MS = 1_000;

interface IdleSignOutProps {
  /** 无操作自动退出 from 系统设置 (getInfo's idleTimeoutMinutes). */
  idleMinutes: number;
  /** Signs out (the shell: tell the server, clear the session, show the sign-in page with the reason). */
  onExpire: () => void;
  /** Tells the server the person is active (GET /api/sys/session/ping). */
  ping: () => Promise<unknown>;
}

/**
 * Idle sign-out (issue 36): one minute before the limit a dialog warns 即将自动退出 with a countdown; 继续使用
 * carries on, nothing signs out at the limit. While the warning is open only its buttons count as activity, so a
 * pointer passing over the page does not silently cancel it.
 */
export function IdleSignOut({ idleMinutes, onExpire, ping }: IdleSignOutProps) {
  const limitMs = idleMinutes * 60_000;
  const [phase, setPhase] = useState<IdlePhase>({ kind: 'active' });
  const warning = useRef(false);
  const ended = useRef(false);
  const lastPing = useRef(0);
  const expire = useRef(onExpire);
  const sendPing = useRef(ping);
  useEffect(() => {
    expire.current = onExpire;
    sendPing.current = ping;
  }, [onExpire, ping]);

  const tick = useCallback(() => {
    const now = Date.now();
    const last = lastActivity();
    const next = idlePhase(last, now, limitMs);
    warning.current = next.kind === 'warning';
    setPhase((prev) =>
      prev.kind === next.kind && (prev.kind !== 'warning' || prev.secondsLeft === (next as typeof prev).secondsLeft)
        ? prev
        : next,
    );
    if (next.kind === 'expired') {
      if (!ended.current) {
        ended.current = true;
        expire.current();
      }
    } else if (next.kind === 'active' && last > lastPing.current && now - lastPing.current >= heartbeatMs(limitMs)) {
      lastPing.current = now;
      void sendPing.current().catch(() => undefined);
    }
  }, [limitMs]);

  useEffect(() => {
    // Signing in, or opening the app, is activity.
    const start = Date.now();
    markActivity(start, true);
    lastPing.current = start;
    const onActivity = () => {
      if (!warning.current) markActivity(Date.now());
    };
    for (const type of ACTIVITY_EVENTS) window.addEventListener(type, onActivity, { capture: true, passive: true });
    const timer = window.setInterval(tick, TICK_MS);
    return () => {
      for (const type of ACTIVITY_EVENTS) window.removeEventListener(type, onActivity, { capture: true });
      window.clearInterval(timer);
    };
  }, [tick]);

  const carryOn = () => {
    const now = Date.now();
    markActivity(now, true);
    lastPing.current = now;
    void sendPing.current().catch(() => undefined);
    tick();
  };

  const signOutNow = () => {
    if (ended.current) return;
    ended.current = true;
    expire.current();
  };

  // Mounted only while warning: closed by activity in another tab, it goes at once.
  if (phase.kind !== 'warning') return null;
  return (
    <Modal
      open
      title={SECURITY_TEXT.idleWarningTitle}
      closable={false}
      keyboard={false}
      mask={{ closable: false }}
      zIndex={2000}
      footer={[
        <Button key="logout" onClick={signOutNow}>
          {SECURITY_TEXT.idleLogout}
        </Button>,
        <Button key="continue" type="primary" onClick={carryOn}>
          {SECURITY_TEXT.idleContinue}
        </Button>,
      ]}
    >
      <p role="timer" aria-live="polite">
        {SECURITY_TEXT.idleWarningBody(phase.secondsLeft)}
      </p>
    </Modal>
  );
}
