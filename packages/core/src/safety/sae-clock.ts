import { instantOfWallClock } from '../calendar.js';
import { parseDateTime } from '../crf/date-time.js';
import { AE_ITEMS } from './ae-form.js';
import { AE_SERIOUS_YES } from './vocabulary.js';

/** An SAE must reach the sponsor and the authorities within 24 hours of the investigator's awareness (GCP 2020 §26). */
export const SAE_REPORT_WINDOW_MS = 24 * 3600_000;

export type SaeClockState = 'running' | 'overdue' | 'submitted' | 'submittedLate';

export interface SaeClock {
  state: SaeClockState;
  /** Until the deadline (negative once past it); for a submitted report, the margin it was submitted with. */
  remainingMs: number;
  /** 剩余 X小时Y分, 已超时 Z小时, 已按时提交, 超时提交. */
  text: string;
}

/** The report's deadline: awareness + 24 hours. */
export function saeDeadline(awareAt: Date): Date {
  return new Date(awareAt.getTime() + SAE_REPORT_WINDOW_MS);
}

const HOUR = 3600_000;
const MINUTE = 60_000;

/**
 * The clock at `now`. Running while now is before the deadline; at the deadline itself (24h00m00s after awareness)
 * it is overdue. Time left is shown rounded up to the minute (29 seconds left read 剩余 0小时1分, never 0小时0分
 * while time remains); time over in whole hours, rounded down (0 to 59 minutes late read 已超时 0小时).
 */
export function saeClock(deadlineAt: Date, now: Date, submittedAt?: Date | null): SaeClock {
  if (submittedAt) {
    const margin = deadlineAt.getTime() - submittedAt.getTime();
    return margin > 0
      ? { state: 'submitted', remainingMs: margin, text: '已按时提交' }
      : { state: 'submittedLate', remainingMs: margin, text: '超时提交' };
  }
  const remainingMs = deadlineAt.getTime() - now.getTime();
  if (remainingMs > 0) {
    const minutes = Math.ceil(remainingMs / MINUTE);
    return { state: 'running', remainingMs, text: `剩余 ${Math.floor(minutes / 60)}小时${minutes % 60}分` };
  }
  return { state: 'overdue', remainingMs, text: `已超时 ${Math.floor(-remainingMs / HOUR)}小时` };
}

/** What an AE record says about reporting: serious with a readable awareness time starts (or moves) the clock. */
export type AeSeriousness = { serious: false } | { serious: true; awareAt: Date | null };

/**
 * Reads an AE log record's values: is it serious (是), and when did the investigator become aware (a wall-clock
 * `yyyy-MM-dd HH:mm[:ss]` in the study's zone)? A serious event without a readable time has `awareAt` null: the
 * clock cannot start until it is entered.
 */
export function aeSeriousness(values: Readonly<Record<string, unknown>>, timeZone: string): AeSeriousness {
  if (String(values[AE_ITEMS.serious] ?? '') !== AE_SERIOUS_YES) return { serious: false };
  const raw = values[AE_ITEMS.aware];
  const parts = typeof raw === 'string' ? parseDateTime(raw) : null;
  if (!parts || !/\d{2}:\d{2}/.test(String(raw))) return { serious: true, awareAt: null };
  const pad = (n: number) => String(n).padStart(2, '0');
  const date = `${parts.year}-${pad(parts.month)}-${pad(parts.day)}`;
  const minute = instantOfWallClock(date, `${pad(parts.hour)}:${pad(parts.minute)}`, timeZone);
  return { serious: true, awareAt: new Date(minute.getTime() + parts.second * 1000) };
}
