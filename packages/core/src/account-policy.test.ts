import { describe, expect, it } from 'vitest';
import {
  expiresOnSchema,
  isAccountExpired,
  isPasswordAged,
  isSessionIdle,
  SECURITY_DEFAULTS,
  securitySettingsOf,
  securitySettingValue,
} from './account-policy.js';

describe('账号有效期', () => {
  it('lets the account in through its last day in Asia/Shanghai, whatever the machine zone', () => {
    // 2026-11-22 23:59:59 and 2026-11-23 00:00:00 in Shanghai.
    expect(isAccountExpired('2026-11-22', new Date('2026-11-22T15:59:59Z'))).toBe(false);
    expect(isAccountExpired('2026-11-22', new Date('2026-11-22T16:00:00Z'))).toBe(true);
    expect(isAccountExpired('2026-11-22', new Date('2026-11-21T16:00:00Z'))).toBe(false);
    expect(isAccountExpired(null, new Date('2099-01-01T00:00:00Z'))).toBe(false);
  });

  it('takes calendar days only, null or nothing', () => {
    expect(expiresOnSchema.safeParse('2028-02-29').success).toBe(true);
    expect(expiresOnSchema.safeParse('2027-02-29').success).toBe(false);
    expect(expiresOnSchema.safeParse('2027-1-5').success).toBe(false);
    expect(expiresOnSchema.safeParse(null).success).toBe(true);
    expect(expiresOnSchema.safeParse(undefined).success).toBe(true);
  });
});

describe('password aging', () => {
  const now = new Date('2026-11-22T08:00:00Z');
  const daysAgo = (d: number) => new Date(now.getTime() - d * 86_400_000);
  it('is aged past the limit, never at 0 days or without a recorded change', () => {
    expect(isPasswordAged(daysAgo(90), 90, now)).toBe(false);
    expect(isPasswordAged(new Date(daysAgo(90).getTime() - 1), 90, now)).toBe(true);
    expect(isPasswordAged(daysAgo(1000), 0, now)).toBe(false);
    expect(isPasswordAged(null, 90, now)).toBe(false);
  });
});

describe('idle sessions', () => {
  const now = new Date('2026-11-22T08:00:00Z');
  const minutesAgo = (m: number) => new Date(now.getTime() - m * 60_000);
  it('are idle past the limit plus the minute by which recorded activity may lag', () => {
    expect(isSessionIdle(minutesAgo(31), 30, now)).toBe(false);
    expect(isSessionIdle(new Date(minutesAgo(31).getTime() - 1), 30, now)).toBe(true);
    expect(isSessionIdle(minutesAgo(2.5), 1, now)).toBe(true);
  });
});

describe('stored settings', () => {
  it('read as numbers, with the defaults for what is missing or out of range', () => {
    expect(securitySettingsOf([])).toEqual(SECURITY_DEFAULTS);
    expect(
      securitySettingsOf([
        { fieldName: 'PasswordMaxAgeDays', fieldValue: '0' },
        { fieldName: 'IdleTimeoutMinutes', fieldValue: 'abc' },
        { fieldName: 'PasswordHistoryCount', fieldValue: '3' },
      ]),
    ).toEqual({ passwordMaxAgeDays: 0, passwordHistoryCount: 3, idleTimeoutMinutes: 30 });
    expect(securitySettingValue('idleTimeoutMinutes', '0')).toBe(30);
    expect(securitySettingValue('idleTimeoutMinutes', '5')).toBe(5);
    expect(securitySettingValue('idleTimeoutMinutes', null)).toBe(30);
  });
});
