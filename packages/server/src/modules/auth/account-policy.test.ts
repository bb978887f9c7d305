import { and, eq } from 'drizzle-orm';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCOUNT_POLICY_MSG, MSG } from '@ecrf/core';
import { auditEvents, operLogs, passwordHistory, sessions, sysConfigs, users } from '../../db/schema/index.js';
import { openDemoStudy } from '../../test/demo.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';

/**
 * Accounts and sessions (issue 36): 账号有效期, password aging and history, idle sign-out, and 系统设置 where
 * their limits are set (audited). The test clock starts at 2026-11-22 16:00 in Asia/Shanghai.
 */
let t: TestApp;
let admin: string;
const MIN = 60_000;
const DAY = 86_400_000;

beforeAll(async () => {
  t = await createTestApp();
  admin = (await t.login()).token;
});
afterAll(() => t.close());

let nextNumber = 0;
/** A user of the administrator role who has replaced the initial password already. */
async function newUser(extra: object = {}, password = 'Passw0rd') {
  const userName = `1370000${String(++nextNumber).padStart(4, '0')}`;
  const res = await t.call(admin, 'POST', '/api/system/user', {
    userName,
    password,
    name: '监查员',
    deptId: 1,
    roleIds: [1],
    ...extra,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const userId = res.body.data.userId as number;
  await t.db.update(users).set({ setPasswordMust: false }).where(eq(users.userId, userId));
  return { userName, userId, password };
}

const signIn = (username: string, password: string) =>
  t.app.inject({ method: 'POST', url: '/api/ignore/sys/login', payload: { username, password } });
const refresh = (refreshToken: string) =>
  t.app.inject({ method: 'POST', url: '/api/ignore/sys/refresh', payload: { refreshToken } });

async function editUser(userId: number, changes: object) {
  const current = (await t.call(admin, 'GET', `/api/system/user?userId=${userId}`)).body.data;
  const { userName, name, sex, email, mobile, deptId, roleIds, remark, status } = current;
  return t.call(admin, 'PUT', '/api/system/user', {
    userId,
    userName,
    name,
    sex,
    email,
    mobile,
    deptId,
    roleIds,
    remark,
    status,
    ...changes,
  });
}

describe('账号有效期', () => {
  it('is set and cleared through the user API and shown in the user list and detail', async () => {
    const { userId, userName } = await newUser({ expiresOn: '2027-03-31' });
    expect((await t.call(admin, 'GET', `/api/system/user?userId=${userId}`)).body.data.expiresOn).toBe('2027-03-31');
    const list = await t.call(admin, 'GET', `/api/system/users?userName=${userName}&pageNum=1&pageSize=10`);
    expect(list.body.data.list[0]).toMatchObject({ userId, expiresOn: '2027-03-31' });
    // An edit that does not send the field (an older client) leaves it; null clears it.
    expect((await editUser(userId, { remark: '外部监查员' })).status).toBe(200);
    expect((await t.call(admin, 'GET', `/api/system/user?userId=${userId}`)).body.data.expiresOn).toBe('2027-03-31');
    expect((await editUser(userId, { expiresOn: null })).status).toBe(200);
    expect((await t.call(admin, 'GET', `/api/system/user?userId=${userId}`)).body.data.expiresOn).toBeNull();
    // Each change is audited with its old and new value (an edit leaving it as it was writes nothing).
    const rows = await t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.action, 'system.user.expiry'), eq(auditEvents.itemName, userName)));
    expect(rows.map((r) => [r.oldValue, r.newValue, r.studyId])).toEqual([['2027-03-31', null, 0]]);
  });

  it('refuses a date that is not a calendar day', async () => {
    const { userId } = await newUser();
    const res = await editUser(userId, { expiresOn: '2026-02-30' });
    expect(res.status).toBe(400);
    expect(res.body.msg).toContain(ACCOUNT_POLICY_MSG.expiresOnInvalid);
  });

  it('lets the account sign in through its last day, then refuses sign-in with a clear message', async () => {
    const { userId, userName, password } = await newUser({ expiresOn: '2026-11-22' });
    expect((await signIn(userName, password)).statusCode).toBe(200);
    expect((await editUser(userId, { expiresOn: '2026-11-21' })).status).toBe(200);
    const refused = await signIn(userName, password);
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ msg: '账号已过期，请联系管理员' });
    // A wrong password still reads as a wrong password: the refusal does not tell a guesser the account exists.
    expect((await signIn(userName, 'not-the-password')).json().msg).toMatch(/^用户名或密码错误/);
  });

  it('ends the sessions already open: their requests are refused and a refresh says why', async () => {
    const { userId, userName, password } = await newUser();
    const session = (await signIn(userName, password)).json().data;
    expect((await t.call(session.token, 'GET', '/api/sys/login/getInfo')).status).toBe(200);
    expect((await editUser(userId, { expiresOn: '2026-11-21' })).status).toBe(200);
    expect((await t.call(session.token, 'GET', '/api/sys/login/getInfo')).status).toBe(401);
    const res = await refresh(session.refreshToken);
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ code: 401, msg: '账号已过期，请联系管理员' });
  });
});

describe('password aging', () => {
  it('forces a change at the next sign-in once the password is older than the limit (90 days by default)', async () => {
    const { userId, userName, password } = await newUser();
    const at = (days: number) => new Date(t.clock().getTime() - days * DAY);
    await t.db
      .update(users)
      .set({ passwordChangedAt: at(89) })
      .where(eq(users.userId, userId));
    expect((await signIn(userName, password)).json().data.setPasswordMust).toBe(false);

    await t.db
      .update(users)
      .set({ passwordChangedAt: at(91) })
      .where(eq(users.userId, userId));
    const aged = (await signIn(userName, password)).json().data;
    expect(aged.setPasswordMust).toBe(true);
    expect(aged.user.setPasswordMust).toBe(true);
    // As after a first sign-in: nothing else until the password is replaced.
    const blocked = await t.call(aged.token, 'GET', '/api/system/users?pageNum=1&pageSize=10');
    expect(blocked.status).toBe(403);
    expect(blocked.body.msg).toBe('请先修改初始密码');
    const changed = await t.call(aged.token, 'PUT', '/api/system/user/password', {
      oldPassword: password,
      newPassword: 'N3wPassw0rd',
    });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    const [row] = await t.db.select().from(users).where(eq(users.userId, userId));
    expect(row!.setPasswordMust).toBe(false);
    expect(row!.passwordChangedAt).toEqual(t.clock());
    expect((await signIn(userName, 'N3wPassw0rd')).json().data.setPasswordMust).toBe(false);
  });

  it('is off at 0 days', async () => {
    const { userId, userName, password } = await newUser();
    await t.db
      .update(users)
      .set({ passwordChangedAt: new Date(t.clock().getTime() - 400 * DAY) })
      .where(eq(users.userId, userId));
    await saveSettings({ passwordMaxAgeDays: 0 });
    try {
      expect((await signIn(userName, password)).json().data.setPasswordMust).toBe(false);
    } finally {
      await saveSettings({ passwordMaxAgeDays: 90 });
    }
  });
});

describe('password history', () => {
  it('refuses each of the last 5 passwords (the current one included) and allows the sixth back', async () => {
    const { userId, userName } = await newUser({}, 'Passw0rd-0');
    let token = (await signIn(userName, 'Passw0rd-0')).json().data.token as string;
    let current = 'Passw0rd-0';
    const change = (newPassword: string) =>
      t.call(token, 'PUT', '/api/system/user/password', { oldPassword: current, newPassword });
    for (let i = 1; i <= 5; i++) {
      const res = await change(`Passw0rd-${i}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      current = `Passw0rd-${i}`;
      token = (await signIn(userName, current)).json().data.token;
    }
    // Every replaced hash is kept, never the password.
    const kept = await t.db.select().from(passwordHistory).where(eq(passwordHistory.userId, userId));
    expect(kept).toHaveLength(5);
    expect(JSON.stringify(kept)).not.toContain('Passw0rd');

    // The last five: Passw0rd-5 (current), -4, -3, -2, -1.
    expect((await change('Passw0rd-5')).body.msg).toBe(MSG.passwordSameAsOld);
    for (const reused of ['Passw0rd-4', 'Passw0rd-3', 'Passw0rd-2', 'Passw0rd-1']) {
      const res = await change(reused);
      expect(res.status).toBe(400);
      expect(res.body.msg).toBe('新密码不能与最近5次使用过的密码相同');
    }
    expect((await signIn(userName, 'Passw0rd-5')).statusCode).toBe(200);

    const sixth = await change('Passw0rd-0');
    expect(sixth.status, JSON.stringify(sixth.body)).toBe(200);
  });

  it('counts as many passwords as 系统设置 says, and an administrator reset keeps the replaced hash too', async () => {
    const { userId, userName } = await newUser({}, 'Passw0rd-a');
    const reset = await t.call(admin, 'PUT', '/api/system/user/password/reset', { userId, newPassword: 'Passw0rd-b' });
    expect(reset.status).toBe(200);
    expect(await t.db.select().from(passwordHistory).where(eq(passwordHistory.userId, userId))).toHaveLength(1);
    const token = (await signIn(userName, 'Passw0rd-b')).json().data.token as string;
    await saveSettings({ passwordHistoryCount: 2 });
    try {
      const again = await t.call(token, 'PUT', '/api/system/user/password', {
        oldPassword: 'Passw0rd-b',
        newPassword: 'Passw0rd-a',
      });
      expect(again.body.msg).toBe('新密码不能与最近2次使用过的密码相同');
      await saveSettings({ passwordHistoryCount: 1 });
      const allowed = await t.call(token, 'PUT', '/api/system/user/password', {
        oldPassword: 'Passw0rd-b',
        newPassword: 'Passw0rd-a',
      });
      expect(allowed.status, JSON.stringify(allowed.body)).toBe(200);
    } finally {
      await saveSettings({ passwordHistoryCount: 5 });
    }
  });
});

describe('idle sign-out', () => {
  async function sessionOf(token: string) {
    const { sid } = decodeJwt(token);
    const [row] = await t.db
      .select()
      .from(sessions)
      .where(eq(sessions.sessionId, sid as string));
    return row!;
  }
  const setLastActive = (token: string, msAgo: number) =>
    t.db
      .update(sessions)
      .set({ lastActiveAt: new Date(t.clock().getTime() - msAgo) })
      .where(eq(sessions.sessionId, decodeJwt(token).sid as string));

  it('records activity at most once a minute per session', async () => {
    const { userName, password } = await newUser();
    const { token } = (await signIn(userName, password)).json().data;
    const signedInAt = (await sessionOf(token)).lastActiveAt;
    expect(signedInAt).toEqual(t.clock());
    t.clock.advance(30_000);
    expect((await t.call(token, 'GET', '/api/sys/login/getInfo')).status).toBe(200);
    expect((await sessionOf(token)).lastActiveAt).toEqual(signedInAt);
    t.clock.advance(30_000);
    // The browser's heartbeat of an active person is such a request.
    expect((await t.call(token, 'GET', '/api/sys/session/ping')).status).toBe(200);
    expect((await sessionOf(token)).lastActiveAt).toEqual(t.clock());
  });

  it('refuses a request after the idle limit (30 minutes by default) and revokes the session; a refresh says why', async () => {
    const { userName, password } = await newUser();
    const { token, refreshToken } = (await signIn(userName, password)).json().data;
    // Within the limit (activity is recorded once a minute, so the limit has a minute's grace).
    await setLastActive(token, 31 * MIN - 1000);
    expect((await t.call(token, 'GET', '/api/sys/login/getInfo')).status).toBe(200);
    expect((await sessionOf(token)).lastActiveAt).toEqual(t.clock());

    await setLastActive(token, 31 * MIN + 1000);
    const refused = await t.call(token, 'GET', '/api/sys/login/getInfo');
    expect(refused.status).toBe(401);
    expect((await sessionOf(token)).revokedAt).toEqual(t.clock());
    const res = await refresh(refreshToken);
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ code: 401, msg: '长时间未操作，已自动退出，请重新登录' });
  });

  it('refuses a refresh after the idle limit, by the limit set in 系统设置', async () => {
    await saveSettings({ idleTimeoutMinutes: 5 });
    try {
      const { userName, password } = await newUser();
      const { token, refreshToken } = (await signIn(userName, password)).json().data;
      await setLastActive(token, 7 * MIN);
      const res = await refresh(refreshToken);
      expect(res.json()).toMatchObject({ code: 401, msg: ACCOUNT_POLICY_MSG.idleSignedOut });
      expect((await sessionOf(token)).revokedAt).not.toBeNull();
      expect((await t.call(token, 'GET', '/api/sys/login/getInfo')).status).toBe(401);
    } finally {
      await saveSettings({ idleTimeoutMinutes: 30 });
    }
  });

  it('a sign-out is not reported as idleness', async () => {
    const { userName, password } = await newUser();
    const { token, refreshToken } = (await signIn(userName, password)).json().data;
    expect((await t.call(token, 'POST', '/api/sys/logout', { refreshToken })).status).toBe(200);
    expect((await refresh(refreshToken)).json().msg).toBe(MSG.loginTimeout);
  });
});

async function saveSettings(changes: object) {
  const current = (await t.call(admin, 'GET', '/api/system/security-settings')).body.data;
  const res = await t.call(admin, 'PUT', '/api/system/security-settings', { ...current, ...changes });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res;
}

describe('系统设置', () => {
  it('answers the defaults, saves a change, audits each changed setting with its old and new value', async () => {
    admin = (await t.login()).token;
    expect((await t.call(admin, 'GET', '/api/system/security-settings')).body.data).toEqual({
      passwordMaxAgeDays: 90,
      passwordHistoryCount: 5,
      idleTimeoutMinutes: 30,
    });
    const before = await t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.studyId, 0), eq(auditEvents.action, 'system.security')));
    const res = await t.call(admin, 'PUT', '/api/system/security-settings', {
      passwordMaxAgeDays: 60,
      passwordHistoryCount: 5,
      idleTimeoutMinutes: 15,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ msg: '保存成功', data: { passwordMaxAgeDays: 60, idleTimeoutMinutes: 15 } });
    const stored = await t.db.select().from(sysConfigs).where(eq(sysConfigs.configKey, 'security'));
    expect(Object.fromEntries(stored.map((r) => [r.fieldName, r.fieldValue]))).toMatchObject({
      PasswordMaxAgeDays: '60',
      IdleTimeoutMinutes: '15',
    });

    const trail = await t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.studyId, 0), eq(auditEvents.action, 'system.security')));
    const added = trail.slice(before.length);
    expect(added.map((r) => [r.itemName, r.oldValue, r.newValue]).sort()).toEqual([
      ['idleTimeoutMinutes', 30, 15],
      ['passwordMaxAgeDays', 90, 60],
    ]);
    expect(added.every((r) => r.userName === '系统管理员(13800000000)' && r.hash !== null)).toBe(true);

    const history = (await t.call(admin, 'GET', '/api/system/security-settings/history')).body.data;
    expect(history[0]).toMatchObject({ setting: expect.any(String), oldValue: expect.any(Number) });
    expect(
      history
        .slice(0, 2)
        .map((h: { name: string }) => h.name)
        .sort(),
    ).toEqual(['密码有效期（天）', '无操作自动退出（分钟）']);

    // Saving the same values again changes nothing and writes nothing.
    await t.call(admin, 'PUT', '/api/system/security-settings', {
      passwordMaxAgeDays: 60,
      passwordHistoryCount: 5,
      idleTimeoutMinutes: 15,
    });
    const after = await t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.studyId, 0), eq(auditEvents.action, 'system.security')));
    expect(after).toHaveLength(trail.length);

    // Every signed-in user's browser learns the idle limit with the user.
    expect((await t.call(admin, 'GET', '/api/sys/login/getInfo')).body.data.idleTimeoutMinutes).toBe(15);
    await t.app.flushOperLogs();
    const logged = await t.db.select().from(operLogs).where(eq(operLogs.title, '系统设置'));
    expect(logged.length).toBeGreaterThan(0);

    await saveSettings({ passwordMaxAgeDays: 90, idleTimeoutMinutes: 30 });
  });

  it('refuses values out of range', async () => {
    const res = await t.call(admin, 'PUT', '/api/system/security-settings', {
      passwordMaxAgeDays: 90,
      passwordHistoryCount: 5,
      idleTimeoutMinutes: 0,
    });
    expect(res.status).toBe(400);
    expect(res.body.msg).toContain('自动退出时间不能少于1分钟');
  });

  it('is for holders of the 系统设置 permission only', async () => {
    const role = await t.call(admin, 'POST', '/api/system/role', {
      roleName: '无设置权限',
      roleKey: 'noSettings',
      menuIds: [],
    });
    expect(role.status, JSON.stringify(role.body)).toBe(200);
    const { userName, password } = await newUser({ roleIds: [role.body.data.roleId] });
    const { token } = (await signIn(userName, password)).json().data;
    expect((await t.call(token, 'GET', '/api/system/security-settings')).status).toBe(403);
    const put = await t.call(token, 'PUT', '/api/system/security-settings', {
      passwordMaxAgeDays: 1,
      passwordHistoryCount: 0,
      idleTimeoutMinutes: 1,
    });
    expect(put.status).toBe(403);
    expect((await t.call(token, 'GET', '/api/sys/login/getInfo')).body.data.idleTimeoutMinutes).toBe(30);
  });
});

describe('API tokens of an expired account', () => {
  it('stop working once the account has expired, and work again when the expiry is extended', async () => {
    const { admin: own, studyId } = await openDemoStudy(t);
    const created = await t.call(own, 'POST', '/api/system/user/profile/apiToken', { studyId });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const apiCall = () =>
      t.app.inject({
        method: 'POST',
        url: '/api/redcap',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ token: created.body.data.token, content: 'project', format: 'json' }).toString(),
      });
    const expire = (expiresOn: string | null) =>
      t.db.update(users).set({ expiresOn }).where(eq(users.userName, '13800000000'));
    expect((await apiCall()).statusCode).toBe(200);
    try {
      await expire('2026-11-21');
      const refused = await apiCall();
      expect(refused.statusCode).toBe(403);
      expect(refused.body).toContain('您没有使用API的权限：账号已过期');
      await expire('2026-11-22');
      expect((await apiCall()).statusCode).toBe(200);
    } finally {
      await expire(null);
    }
  });
});
