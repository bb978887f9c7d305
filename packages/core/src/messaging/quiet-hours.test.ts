import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isQuietTime, nextSendTime } from './quiet-hours.js';

const SH = 'Asia/Shanghai';
const NY = 'America/New_York';
const at = (iso: string) => new Date(iso);

describe('messages: quiet hours', () => {
  it('outside the quiet hours a message goes now', () => {
    const now = at('2026-03-10T02:00:00Z'); // 10:00 in Shanghai
    expect(nextSendTime(now, SH, '21:00', '08:00')).toBe(now);
    expect(nextSendTime(at('2026-03-10T06:00:00Z'), SH, '12:00', '14:00').toISOString()).toBe(
      '2026-03-10T06:00:00.000Z',
    );
  });

  it('quiet hours across midnight: held back until 08:00, today or tomorrow', () => {
    // 22:30 Shanghai → 08:00 the next morning.
    expect(nextSendTime(at('2026-03-10T14:30:00Z'), SH, '21:00', '08:00').toISOString()).toBe(
      '2026-03-11T00:00:00.000Z',
    );
    // 21:00 exactly is inside.
    expect(nextSendTime(at('2026-03-10T13:00:00Z'), SH, '21:00', '08:00').toISOString()).toBe(
      '2026-03-11T00:00:00.000Z',
    );
    // 03:00 Shanghai → 08:00 the same morning.
    expect(nextSendTime(at('2026-03-10T19:00:00Z'), SH, '21:00', '08:00').toISOString()).toBe(
      '2026-03-11T00:00:00.000Z',
    );
    // 08:00 exactly is outside; 07:59:59 inside.
    expect(nextSendTime(at('2026-03-11T00:00:00Z'), SH, '21:00', '08:00').toISOString()).toBe(
      '2026-03-11T00:00:00.000Z',
    );
    expect(isQuietTime(at('2026-03-10T23:59:59Z'), SH, '21:00', '08:00')).toBe(true);
  });

  it('quiet hours within a day: 12:00–14:00 holds back to 14:00', () => {
    expect(nextSendTime(at('2026-03-10T04:30:00Z'), SH, '12:00', '14:00').toISOString()).toBe(
      '2026-03-10T06:00:00.000Z',
    );
    expect(isQuietTime(at('2026-03-10T03:59:00Z'), SH, '12:00', '14:00')).toBe(false);
  });

  it('equal start and end mean no quiet hours', () => {
    const now = at('2026-03-10T14:30:00Z');
    expect(nextSendTime(now, SH, '21:00', '21:00')).toBe(now);
  });

  it('New York around the clocks going forward and back', () => {
    // 2026-03-08: 02:00 EST → 03:00 EDT. 23:00 EST on the 7th → 08:00 EDT on the 8th (12:00Z).
    expect(nextSendTime(at('2026-03-08T04:00:00Z'), NY, '21:00', '08:00').toISOString()).toBe(
      '2026-03-08T12:00:00.000Z',
    );
    // Quiet hours ending in the skipped hour (02:30) end when the clock reads 03:00 EDT, just after the gap.
    expect(nextSendTime(at('2026-03-08T06:30:00Z'), NY, '00:00', '02:30').toISOString()).toBe(
      '2026-03-08T07:00:00.000Z',
    );
    // 2026-11-01: 02:00 EDT → 01:00 EST. 23:00 EDT on Oct 31 → 08:00 EST on Nov 1 (13:00Z).
    expect(nextSendTime(at('2026-11-01T03:00:00Z'), NY, '21:00', '08:00').toISOString()).toBe(
      '2026-11-01T13:00:00.000Z',
    );
    // In the repeated hour's second pass (01:15 EST), quiet hours to 01:30 end at 01:30 EST, not the earlier 01:30 EDT.
    expect(nextSendTime(at('2026-11-01T06:15:00Z'), NY, '00:00', '01:30').toISOString()).toBe(
      '2026-11-01T06:30:00.000Z',
    );
  });

  it('rejects a time that is not HH:mm', () => {
    expect(() => nextSendTime(new Date(), SH, '9:00', '08:00')).toThrow(RangeError);
  });
});

const timeArb = fc
  .tuple(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 }))
  .map(([h, m]) => `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`);
const instantArb = fc.date({
  min: new Date(Date.UTC(2025, 0, 1)),
  max: new Date(Date.UTC(2027, 11, 31)),
  noInvalidDate: true,
});

describe('messages: quiet hours (properties)', () => {
  it('the send time is never inside quiet hours, never before now, and at most a day later', () => {
    fc.assert(
      fc.property(instantArb, fc.constantFrom(SH, NY, 'UTC'), timeArb, timeArb, (now, zone, start, end) => {
        const send = nextSendTime(now, zone, start, end);
        expect(send.getTime()).toBeGreaterThanOrEqual(now.getTime());
        expect(isQuietTime(send, zone, start, end)).toBe(false);
        expect(send.getTime() - now.getTime()).toBeLessThanOrEqual(25 * 3_600_000);
        if (!isQuietTime(now, zone, start, end)) expect(send).toBe(now);
      }),
    );
  });
});
