import { z } from 'zod';
import { todayString } from './crf/date-time.js';

/**
 * Account and session policy (issue 36, 等保 2.0 / 21 CFR Part 11 §11.300): accounts that expire, password aging
 * with a history, idle sign-out. The rules are here so that the server enforces and the browser explains the same
 * thing; the settings live in sys_configs under SECURITY_CONFIG_KEY and are changed in 系统设置.
 */

/** The zone an account's expiry day is read in: the platform's users are in mainland China. */
export const ACCOUNT_TIME_ZONE = 'Asia/Shanghai';

export const ACCOUNT_POLICY_MSG = {
  accountExpired: '账号已过期，请联系管理员',
  apiAccountExpired: '您没有使用API的权限：账号已过期',
  idleSignedOut: '长时间未操作，已自动退出，请重新登录',
  passwordReused: (count: number) => `新密码不能与最近${count}次使用过的密码相同`,
  expiresOnInvalid: '账号有效期格式不正确',
} as const;

/** sys_configs.config_key of the three settings (系统设置), and each setting's field_name. */
export const SECURITY_CONFIG_KEY = 'security';
export const SECURITY_FIELDS = {
  passwordMaxAgeDays: 'PasswordMaxAgeDays',
  passwordHistoryCount: 'PasswordHistoryCount',
  idleTimeoutMinutes: 'IdleTimeoutMinutes',
} as const;
export type SecuritySetting = keyof typeof SECURITY_FIELDS;

export const SECURITY_SETTING_NAMES: Record<SecuritySetting, string> = {
  passwordMaxAgeDays: '密码有效期（天）',
  passwordHistoryCount: '不可重复使用的最近密码数',
  idleTimeoutMinutes: '无操作自动退出（分钟）',
};

/** Used while a setting has never been saved (or its stored text is unreadable). */
export const SECURITY_DEFAULTS: Readonly<SecuritySettings> = {
  passwordMaxAgeDays: 90,
  passwordHistoryCount: 5,
  idleTimeoutMinutes: 30,
};

/**
 * 0 days switches password aging off and 0 the history check; the idle limit is at least one minute (the web warns
 * one minute before) and at most a day.
 */
export const securitySettingsSchema = z.strictObject({
  passwordMaxAgeDays: z.number().int().min(0, '密码有效期不能小于0天').max(3650, '密码有效期不能超过3650天'),
  passwordHistoryCount: z.number().int().min(0, '最近密码数不能小于0').max(24, '最近密码数不能超过24'),
  idleTimeoutMinutes: z.number().int().min(1, '自动退出时间不能少于1分钟').max(1440, '自动退出时间不能超过1440分钟'),
});
export type SecuritySettings = z.infer<typeof securitySettingsSchema>;

/** Settings as stored (text per field), defaults for what is missing or out of range. */
export function securitySettingsOf(stored: ReadonlyArray<{ fieldName: string; fieldValue: string }>): SecuritySettings {
  const settings: SecuritySettings = { ...SECURITY_DEFAULTS };
  for (const key of Object.keys(SECURITY_FIELDS) as SecuritySetting[]) {
    const row = stored.find((r) => r.fieldName === SECURITY_FIELDS[key]);
    const value = row ? Number(row.fieldValue) : Number.NaN;
    if (securitySettingsSchema.shape[key].safeParse(value).success) settings[key] = value;
  }
  return settings;
}

/** One stored setting's value, or its default (the sign-in checks read single fields). */
export function securitySettingValue(key: SecuritySetting, stored: string | null | undefined): number {
  const value = stored === null || stored === undefined ? Number.NaN : Number(stored);
  return securitySettingsSchema.shape[key].safeParse(value).success ? value : SECURITY_DEFAULTS[key];
}

const DAY_PATTERN = /^\d{4}-\d{2}-\d{2}$/;

function isCalendarDay(text: string): boolean {
  if (!DAY_PATTERN.test(text)) return false;
  const [y, m, d] = text.split('-').map(Number) as [number, number, number];
  const date = new Date(Date.UTC(y, m - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
}

/** 账号有效期 as the user API takes it: a calendar day, or null for none. Omitted on an edit: left as it is. */
export const expiresOnSchema = z
  .string()
  .refine(isCalendarDay, ACCOUNT_POLICY_MSG.expiresOnInvalid)
  .nullable()
  .optional();

/** The account may sign in through its expiry day (Asia/Shanghai) and not after. */
export function isAccountExpired(expiresOn: string | null | undefined, now: Date): boolean {
  return Boolean(expiresOn) && todayString(now, ACCOUNT_TIME_ZONE) > expiresOn!;
}

const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;

/**
 * Has the password outlived the aging limit? A password whose change time is unknown (null: set before the
 * platform recorded it, and never changed since) is not aged: the clock starts at the first recorded change.
 */
export function isPasswordAged(changedAt: Date | null | undefined, maxAgeDays: number, now: Date): boolean {
  if (!changedAt || maxAgeDays <= 0) return false;
  return now.getTime() - changedAt.getTime() > maxAgeDays * DAY_MS;
}

/**
 * The server records a session's activity at most once per this interval (one write a minute, not one a request),
 * so the recorded time may lag the real last request by up to this much.
 */
export const ACTIVITY_RECORD_MS = MINUTE_MS;

/**
 * Is the session idle past the limit, judged by its recorded activity? The recorded time lags by up to
 * ACTIVITY_RECORD_MS, so the limit is extended by that much: a session is never cut before the limit, and is cut
 * within a minute after it. The web signs out at the limit itself, by its own timer.
 */
export function isSessionIdle(lastActiveAt: Date, idleTimeoutMinutes: number, now: Date): boolean {
  return now.getTime() - lastActiveAt.getTime() > idleTimeoutMinutes * MINUTE_MS + ACTIVITY_RECORD_MS;
}

/** The web warns this long before signing out for idleness. */
export const IDLE_WARNING_MS = MINUTE_MS;

/** GET/PUT /api/system/security-settings history rows: who changed which setting when, from what to what. */
export const securitySettingChangeSchema = z.object({
  id: z.number(),
  setting: z.string(),
  name: z.string(),
  oldValue: z.number().nullable(),
  newValue: z.number(),
  userName: z.string(),
  createTime: z.string(),
});
export type SecuritySettingChange = z.infer<typeof securitySettingChangeSchema>;
