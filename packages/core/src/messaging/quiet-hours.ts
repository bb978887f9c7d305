import { instantOfWallClock } from '../calendar.js';
import { todayString, wallClock } from '../crf/date-time.js';
import { addDays } from '../follow/schedule.js';

/**
 * Quiet hours (免打扰时段, issue 38): no message reaches a patient between `quietStart` and `quietEnd` on the wall
 * clock of the study's zone. The start is inside, the end outside: 21:00–08:00 holds back 21:00:00 … 07:59:59.
 * Hours may span midnight (21:00–08:00) or not (12:00–14:00); equal start and end mean no quiet hours.
 */

const HHMM = /^([01]\d|2[0-3]):([0-5]\d)$/;

function minutesOf(time: string): number {
  const m = HHMM.exec(time);
  if (!m) throw new RangeError(`not a time (HH:mm): ${time}`);
  return Number(m[1]) * 60 + Number(m[2]);
}

/** Whether an instant falls inside the quiet hours on the zone's wall clock. */
export function isQuietTime(at: Date, timeZone: string, quietStart: string, quietEnd: string): boolean {
  const start = minutesOf(quietStart);
  const end = minutesOf(quietEnd);
  if (start === end) return false;
  const w = wallClock(at, timeZone);
  const millis = ((at.getTime() % 1000) + 1000) % 1000;
  const t = w.hour * 60 + w.minute + (w.second * 1000 + millis) / 60_000;
  return start < end ? t >= start && t < end : t >= start || t < end;
}

/**
 * When a message queued at `now` may go: `now` itself outside the quiet hours, otherwise the instant the zone's wall
 * clock next reads `quietEnd` (a `quietEnd` that a daylight-saving change skips is read as the instant just after
 * the gap).
 */
export function nextSendTime(now: Date, timeZone: string, quietStart: string, quietEnd: string): Date {
  if (!isQuietTime(now, timeZone, quietStart, quietEnd)) return now;
  const w = wallClock(now, timeZone);
  const today = todayString(now, timeZone);
  const minute = w.hour * 60 + w.minute;
  // Spanning midnight and already past the start: the quiet hours end tomorrow; otherwise they end today.
  const endDay =
    minutesOf(quietStart) > minutesOf(quietEnd) && minute >= minutesOf(quietStart) ? addDays(today, 1) : today;
  const candidate = instantOfWallClock(endDay, quietEnd, timeZone);
  if (candidate.getTime() > now.getTime() && !isQuietTime(candidate, timeZone, quietStart, quietEnd)) return candidate;
  // A repeated hour (the clocks going back) can put the end's first reading before now: walk on to the first quiet-free minute.
  const firstMinute = Math.floor(now.getTime() / 60_000) * 60_000 + 60_000;
  for (let at = firstMinute; at < now.getTime() + 3 * 86_400_000; at += 60_000) {
    const instant = new Date(at);
    if (!isQuietTime(instant, timeZone, quietStart, quietEnd)) return instant;
  }
  throw new RangeError(`no time outside quiet hours ${quietStart}–${quietEnd} in ${timeZone}`);
}
