import { eq, like } from 'drizzle-orm';
import { SignJWT, decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MSG } from '@ecrf/core';
import { buildApp } from '../../app.js';
import { kvEntries, sessions, spentRefreshTokens, users } from '../../db/schema/index.js';
import { databaseStore } from '../../shared/kv.js';
import { LOCK_MS, MAX_FAILED_LOGINS, slowdownMs } from './auth.service.js';
import { ADMIN, TEST_ADMIN_PASSWORD, createTestApp, type TestApp } from '../../test/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

async function createUser(token: string, userName: string, password = 'Passw0rd', extra: object = {}) {
  const res = await t.call(token, 'POST', '/api/system/user', {
    userName,
    password,
    name: '测试用户',
    deptId: 1,
    roleIds: [1],
    ...extra,
  });
  expect(res.status).toBe(200);
  return res.body.data.userId as number;
}

describe('sign-in', () => {
  it('AUTH-01/AUTH-05: signs in with {username, password, code, uuid} and answers token, refresh token, user and must-change flag', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/ignore/sys/login?_n=0.123',
      payload: { username: ADMIN, password: TEST_ADMIN_PASSWORD, code: '', uuid: '' },
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.code).toBe(200);
    expect(body.data.token).toMatch(/^ey/);
    expect(body.data.refreshToken).toHaveLength(43);
    expect(body.data.setPasswordMust).toBe(false);
    expect(body.data.user).toMatchObject({ userId: 1, userName: ADMIN, name: '系统管理员', remark: '平台初始管理员' });
    const [session] = await t.db.select().from(sessions).where(eq(sessions.userId, 1));
    expect(session!.refreshHash).not.toBe(body.data.refreshToken);
  });

  it('rejects a wrong password with a 400 and the attempts left', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/ignore/sys/login',
      payload: { username: ADMIN, password: 'wrong-pass' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 400, msg: '用户名或密码错误，还可尝试4次' });
    await t.login(); // a success clears the failure count
  });

  it('locks a user name at an address for 15 minutes after 5 failures within 15 minutes, refusing even the right password', async () => {
    const { token } = await t.login();
    await createUser(token, '13900000001');
    const attempt = (password: string) =>
      t.app.inject({ method: 'POST', url: '/api/ignore/sys/login', payload: { username: '13900000001', password } });
    for (let i = 0; i < 4; i++) {
      expect((await attempt('bad-password')).statusCode).toBe(400);
      t.clock.advance(slowdownMs(i + 1));
    }
    const fifth = await attempt('bad-password');
    expect(fifth.statusCode).toBe(423);
    expect(fifth.json().msg).toBe('密码错误次数过多，账号已锁定，请15分钟后再试');
    const locked = await attempt('Passw0rd');
    expect(locked.statusCode).toBe(423);
    expect(locked.json().msg).toMatch(/账号已锁定，请\d+分钟后再试/);
    t.clock.advance(15 * 60 * 1000 + 1);
    expect((await attempt('Passw0rd')).statusCode).toBe(200);
  });

  it('forgets failures older than the 15-minute window', async () => {
    const { token } = await t.login();
    await createUser(token, '13900000002');
    const attempt = (password: string) =>
      t.app.inject({ method: 'POST', url: '/api/ignore/sys/login', payload: { username: '13900000002', password } });
    for (let i = 0; i < 4; i++) {
      await attempt('bad-password');
      t.clock.advance(slowdownMs(i + 1));
    }
    t.clock.advance(16 * 60 * 1000);
    expect((await attempt('bad-password')).statusCode).toBe(400);
  });

  describe('an anonymous caller cannot lock the administrator out', () => {
    const from = (ip: string, password: string, username = ADMIN) =>
      t.app.inject({
        method: 'POST',
        url: '/api/ignore/sys/login',
        remoteAddress: ip,
        payload: { username, password },
      });

    it('slows down with a 429 and Retry-After before it locks; the wait does not count as a failure', async () => {
      const ip = '203.0.113.10';
      expect((await from(ip, 'guess-1')).statusCode).toBe(400);
      const second = await from(ip, 'guess-2');
      expect(second.json().msg).toBe('用户名或密码错误，还可尝试3次');
      const early = await from(ip, TEST_ADMIN_PASSWORD);
      expect(early.statusCode).toBe(429);
      expect(early.json()).toMatchObject({ code: 429, msg: '请求过于频繁，请稍后再试' });
      expect(early.headers['retry-after']).toBe(String(slowdownMs(2) / 1000));
      t.clock.advance(slowdownMs(2));
      // The refused early try was not counted: still 2 left after the third real failure.
      expect((await from(ip, 'guess-3')).json().msg).toBe('用户名或密码错误，还可尝试2次');
      t.clock.advance(slowdownMs(3) - 1);
      expect((await from(ip, 'guess-4')).statusCode).toBe(429);
      t.clock.advance(1);
      expect((await from(ip, TEST_ADMIN_PASSWORD)).statusCode).toBe(200);
    });

    it('counts failures per user name and address: an attacker locked out elsewhere leaves the administrator signing in', async () => {
      const attacker = '198.51.100.7';
      for (let i = 1; i <= MAX_FAILED_LOGINS; i++) {
        const res = await from(attacker, `guess-${i}`);
        expect(res.statusCode).toBe(i < MAX_FAILED_LOGINS ? 400 : 423);
        t.clock.advance(slowdownMs(i));
      }
      expect((await from(attacker, TEST_ADMIN_PASSWORD)).statusCode).toBe(423);
      expect((await from('192.0.2.20', TEST_ADMIN_PASSWORD)).statusCode).toBe(200);
      t.clock.advance(LOCK_MS);
    });

    it('keeps counters and locks in the database: an app rebuilt on the same database still refuses', async () => {
      const attacker = '198.51.100.8';
      for (let i = 1; i <= MAX_FAILED_LOGINS; i++) {
        await from(attacker, `guess-${i}`);
        t.clock.advance(slowdownMs(i));
      }
      const stillFailing = '198.51.100.9';
      expect((await from(stillFailing, 'guess-1')).statusCode).toBe(400);
      expect((await from(stillFailing, 'guess-2')).statusCode).toBe(400);
      const rows = await t.db.select().from(kvEntries).where(like(kvEntries.key, 'login:%'));
      expect(rows.map((r) => r.key)).toEqual(
        expect.arrayContaining([
          `login:lock:${ADMIN}|${attacker}`,
          `login:fail:${ADMIN}|${stillFailing}`,
          `login:wait:${ADMIN}|${stillFailing}`,
        ]),
      );

      const kv = databaseStore(t.db, () => t.clock().getTime());
      const rebuilt = await buildApp({ ...t.ctx, kv });
      try {
        const again = (ip: string, password: string) =>
          rebuilt.inject({
            method: 'POST',
            url: '/api/ignore/sys/login',
            remoteAddress: ip,
            payload: { username: ADMIN, password },
          });
        expect((await again(attacker, TEST_ADMIN_PASSWORD)).statusCode).toBe(423);
        expect((await again(stillFailing, TEST_ADMIN_PASSWORD)).statusCode).toBe(429);
        t.clock.advance(slowdownMs(2));
        expect((await again(stillFailing, 'guess-3')).json().msg).toBe('用户名或密码错误，还可尝试2次');
      } finally {
        await rebuilt.close();
        await rebuilt.flushOperLogs();
        await kv.close();
      }
      t.clock.advance(LOCK_MS);
    });
  });

  it('rate-limits sign-in attempts per address', async () => {
    const other = await createTestApp({ config: { loginRateLimitPerMinute: 10 } });
    try {
      const limit = other.ctx.config.loginRateLimitPerMinute;
      let last = 0;
      for (let i = 0; i <= limit; i++) {
        const res = await other.app.inject({
          method: 'POST',
          url: '/api/ignore/sys/login',
          remoteAddress: '10.0.0.9',
          payload: { username: `1390000${String(i).padStart(4, '0')}`, password: 'whatever1' },
        });
        last = res.statusCode;
      }
      expect(last).toBe(429);
    } finally {
      await other.close();
    }
  });

  it('refuses a disabled user at sign-in and stops the tokens it already holds', async () => {
    const { token: admin } = await t.login();
    const userId = await createUser(admin, '13900000003');
    await t.db.update(users).set({ setPasswordMust: false }).where(eq(users.userId, userId));
    const { token } = await t.login('13900000003', 'Passw0rd');
    expect((await t.call(token, 'GET', '/api/sys/login/getInfo')).status).toBe(200);
    expect((await t.call(admin, 'PUT', '/api/system/user/status', { userId, status: 1 })).status).toBe(200);
    const after = await t.call(token, 'GET', '/api/sys/login/getInfo');
    expect(after.status).toBe(401);
    expect(after.body.msg).toBe(MSG.loginTimeout);
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/ignore/sys/login',
      payload: { username: '13900000003', password: 'Passw0rd' },
    });
    expect(res.statusCode).toBe(403);
    expect(res.json().msg).toBe('账号已停用，请联系管理员');
  });

  it('answers 400 with field paths for a malformed sign-in body', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/ignore/sys/login', payload: { username: '' } });
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(body.msg).toBe('请输入用户名');
    expect(body.data.errors.map((e: { path: string }) => e.path)).toEqual(
      expect.arrayContaining(['username', 'password']),
    );
  });
});

describe('captcha', () => {
  let c: TestApp;
  beforeAll(async () => {
    c = await createTestApp({ captcha: true });
  });
  afterAll(() => c.close());

  async function captcha() {
    const res = await c.app.inject({ method: 'GET', url: '/api/ignore/common/captcha?_n=1' });
    expect(res.statusCode).toBe(200);
    const data = res.json().data as { captchaEnabled: boolean; uuid: string; img: string };
    const answer = await c.ctx.kv.get(`captcha:${data.uuid}`);
    return { ...data, answer: answer! };
  }
  const login = (code: string, uuid: string) =>
    c.app.inject({
      method: 'POST',
      url: '/api/ignore/sys/login',
      payload: { username: ADMIN, password: TEST_ADMIN_PASSWORD, code, uuid },
    });

  it('AUTH-02: issues an image with a uuid', async () => {
    const { captchaEnabled, uuid, img, answer } = await captcha();
    expect(captchaEnabled).toBe(true);
    expect(uuid).toMatch(/^[0-9a-f-]{36}$/);
    expect(img).toMatch(/^data:image\/svg\+xml;base64,/);
    expect(answer).toHaveLength(4);
  });

  it('accepts the right answer, case-insensitively, once', async () => {
    const { uuid, answer } = await captcha();
    expect((await login(answer.toUpperCase(), uuid)).statusCode).toBe(200);
    const reused = await login(answer, uuid);
    expect(reused.statusCode).toBe(400);
    expect(reused.json().msg).toBe('验证码已失效');
  });

  it('refuses a wrong answer and burns the captcha', async () => {
    const { uuid, answer } = await captcha();
    const wrong = await login('zzzz', uuid);
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().msg).toBe('验证码错误');
    expect((await login(answer, uuid)).json().msg).toBe('验证码已失效');
  });

  it('refuses an expired captcha and a missing code', async () => {
    const { uuid, answer } = await captcha();
    c.clock.advance(2 * 60 * 1000 + 1);
    expect((await login(answer, uuid)).json().msg).toBe('验证码已失效');
    expect((await login('', uuid)).json().msg).toBe('请输入验证码');
  });

  it('rate-limits captcha issuing per address', async () => {
    const limited = await createTestApp({ captcha: true, config: { captchaRateLimitPerMinute: 3 } });
    try {
      const fetchFrom = (ip: string) =>
        limited.app.inject({ method: 'GET', url: '/api/ignore/common/captcha', remoteAddress: ip });
      for (let i = 0; i < 3; i++) expect((await fetchFrom('203.0.113.50')).statusCode).toBe(200);
      const refused = await fetchFrom('203.0.113.50');
      expect(refused.statusCode).toBe(429);
      expect(refused.json()).toEqual({ code: 429, msg: '请求过于频繁，请稍后再试', data: null });
      expect((await fetchFrom('203.0.113.51')).statusCode).toBe(200);
    } finally {
      await limited.close();
    }
  });

  it('says when the captcha is switched off', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/ignore/common/captcha' });
    expect(res.json().data).toEqual({ captchaEnabled: false, uuid: '', img: '' });
  });
});

describe('tokens and sessions', () => {
  it('HTTP-12: answers 401 登录超时 without a token, with a forged one and with an expired one', async () => {
    const none = await t.app.inject({ method: 'GET', url: '/api/sys/login/getInfo' });
    expect(none.statusCode).toBe(401);
    expect(none.json()).toEqual({ code: 401, msg: '登录超时', data: null });

    const { token } = await t.login();
    const [header, payload] = token.split('.');
    const forged = `${header}.${payload}.${'A'.repeat(43)}`;
    expect((await t.call(forged, 'GET', '/api/sys/login/getInfo')).status).toBe(401);
    expect((await t.call('not-a-token', 'GET', '/api/sys/login/getInfo')).status).toBe(401);

    t.clock.advance(31 * 60 * 1000);
    expect((await t.call(token, 'GET', '/api/sys/login/getInfo')).status).toBe(401);
  });

  it('refuses a correctly signed access token without exp', async () => {
    const { token } = await t.login();
    const { sid, sub } = decodeJwt(token);
    const secret = new TextEncoder().encode('test-secret-test-secret-test-secret!');
    const now = Math.floor(t.clock().getTime() / 1000);
    const sign = (withExp: boolean) => {
      const jwt = new SignJWT({ sid }).setProtectedHeader({ alg: 'HS256' }).setSubject(sub!).setIssuedAt(now);
      return (withExp ? jwt.setExpirationTime(now + 60) : jwt).sign(secret);
    };
    // The same claims with an exp pass, so the refusal is about the missing exp alone.
    expect((await t.call(await sign(true), 'GET', '/api/sys/login/getInfo')).status).toBe(200);
    const res = await t.call(await sign(false), 'GET', '/api/sys/login/getInfo');
    expect(res.status).toBe(401);
    expect(res.body.msg).toBe(MSG.loginTimeout);
  });

  it('reusing a rotated refresh token revokes the whole session family: the thief and the owner are both signed out', async () => {
    const { refreshToken: first } = await t.login();
    const rotate = (refreshToken: string) =>
      t.app.inject({ method: 'POST', url: '/api/ignore/sys/refresh', payload: { refreshToken } });
    const second = (await rotate(first)).json().data;
    const third = (await rotate(second.refreshToken)).json().data;
    expect((await t.call(third.token, 'GET', '/api/sys/login/getInfo')).status).toBe(200);

    const { sid } = decodeJwt(third.token);
    expect(
      await t.db
        .select()
        .from(spentRefreshTokens)
        .where(eq(spentRefreshTokens.sessionId, sid as string)),
    ).toHaveLength(2);

    const stolen = await rotate(first);
    expect(stolen.statusCode).toBe(401);
    const [session] = await t.db
      .select()
      .from(sessions)
      .where(eq(sessions.sessionId, sid as string));
    expect(session!.revokedAt).not.toBeNull();
    expect((await t.call(third.token, 'GET', '/api/sys/login/getInfo')).status).toBe(401);
    expect((await rotate(third.refreshToken)).statusCode).toBe(401);
  });

  it('two refreshes racing with one token: at most one succeeds, and the family is revoked', async () => {
    const { refreshToken } = await t.login();
    const answers = await Promise.all(
      [1, 2].map(() => t.app.inject({ method: 'POST', url: '/api/ignore/sys/refresh', payload: { refreshToken } })),
    );
    const ok = answers.filter((r) => r.statusCode === 200);
    expect(ok.length).toBeLessThanOrEqual(1);
    for (const winner of ok) {
      expect((await t.call(winner.json().data.token, 'GET', '/api/sys/login/getInfo')).status).toBe(401);
    }
  });

  it('refreshes an access token and rotates the refresh token', async () => {
    const { token, refreshToken } = await t.login();
    // In use (a request a minute before the access token ends), so not signed out for idleness.
    t.clock.advance(29 * 60 * 1000);
    expect((await t.call(token, 'GET', '/api/sys/login/getInfo')).status).toBe(200);
    t.clock.advance(2 * 60 * 1000);
    const res = await t.app.inject({ method: 'POST', url: '/api/ignore/sys/refresh', payload: { refreshToken } });
    expect(res.statusCode).toBe(200);
    const next = res.json().data;
    expect((await t.call(next.token, 'GET', '/api/sys/login/getInfo')).status).toBe(200);
    const replay = await t.app.inject({ method: 'POST', url: '/api/ignore/sys/refresh', payload: { refreshToken } });
    expect(replay.statusCode).toBe(401);
  });

  it('AUTH-07: log-out revokes the session: its access and refresh tokens stop working', async () => {
    const { token, refreshToken } = await t.login();
    expect((await t.call(token, 'POST', '/api/sys/logout', { refreshToken })).status).toBe(200);
    expect((await t.call(token, 'GET', '/api/sys/login/getInfo')).status).toBe(401);
    const res = await t.app.inject({ method: 'POST', url: '/api/ignore/sys/refresh', payload: { refreshToken } });
    expect(res.statusCode).toBe(401);
  });
});

describe('current user', () => {
  it('AUTH-03: getInfo answers the user, role keys and permission list', async () => {
    const { token } = await t.login();
    const res = await t.call(token, 'GET', '/api/sys/login/getInfo?_n=42');
    expect(res.status).toBe(200);
    expect(res.body.data.user).toMatchObject({ userId: 1, userName: ADMIN, deptName: '根机构' });
    expect(res.body.data.roles).toEqual(['admin']);
    expect(res.body.data.roleNames).toEqual(['超级管理员']);
    expect(res.body.data.permissions).toEqual(['*:*:*']);
  });

  it('AUTH-04/SHELL-17: getRouters answers the menu tree with level and code, level 0 for the main layout and 1 for the project layout', async () => {
    const { token } = await t.login();
    const res = await t.call(token, 'GET', '/api/sys/login/getRouters');
    expect(res.body.code).toBe(200);
    const tree = res.body.data as Array<{ code: string; level: number; type: string; children: any[] }>;
    const codes = (nodes: any[]): string[] => nodes.flatMap((n) => [n.code, ...codes(n.children)]);
    const all = codes(tree);
    expect(all).toEqual(
      expect.arrayContaining([
        'studyList',
        'sys.user',
        'sys.organization',
        'study.operation',
        'project.subject',
        'project.biology',
        'project.crfUpload',
      ]),
    );
    expect(tree.find((n) => n.code === 'sys')!.level).toBe(0);
    expect(tree.find((n) => n.code === 'project.subject')!.level).toBe(1);
    const types = (nodes: any[]): string[] => nodes.flatMap((n) => [n.type, ...types(n.children)]);
    expect(types(tree)).not.toContain('F');
  });
});

describe('passwords', () => {
  it('AUTH-11/AUTH-13: changes the own password, signs other sessions out and keeps this one', async () => {
    const { token: admin } = await t.login();
    const userId = await createUser(admin, '13900000010');
    const first = await t.login('13900000010', 'Passw0rd');
    const second = await t.login('13900000010', 'Passw0rd');
    const res = await t.call(first.token, 'PUT', '/api/system/user/password', {
      userId,
      oldPassword: 'Passw0rd',
      newPassword: 'N3wPassword',
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ code: 200, msg: '修改成功', data: null });
    expect((await t.call(first.token, 'GET', '/api/sys/login/getInfo')).status).toBe(200);
    expect((await t.call(second.token, 'GET', '/api/sys/login/getInfo')).status).toBe(401);
    await expect(t.login('13900000010', 'Passw0rd')).rejects.toThrow();
    const again = await t.login('13900000010', 'N3wPassword');
    expect(again.setPasswordMust).toBe(false);
  });

  it('AUTH-15..19: enforces the password rules on the server with the spec messages', async () => {
    const { token, user } = await t.login();
    const put = (body: object) => t.call(token, 'PUT', '/api/system/user/password', { userId: user.userId, ...body });
    expect((await put({ newPassword: 'abcdef1' })).body.msg).toBe('请输入原始密码');
    expect((await put({ oldPassword: TEST_ADMIN_PASSWORD })).body.msg).toBe('请输入密码');
    expect((await put({ oldPassword: TEST_ADMIN_PASSWORD, newPassword: TEST_ADMIN_PASSWORD })).body.msg).toBe(
      '不能和原始密码相同!',
    );
    expect((await put({ oldPassword: TEST_ADMIN_PASSWORD, newPassword: '12345' })).body.msg).toBe('密码不可少于6字符');
    const twenty = await put({ oldPassword: TEST_ADMIN_PASSWORD, newPassword: 'a'.repeat(20) });
    expect(twenty.status).toBe(400);
    expect(twenty.body.msg).toBe('密码不可超过20字符');
    expect(twenty.body.data.errors[0].path).toBe('newPassword');
    expect((await put({ oldPassword: 'not-the-password', newPassword: 'abcdef1' })).body.msg).toBe('原始密码错误');
    expect(
      (
        await t.call(token, 'PUT', '/api/system/user/password', {
          userId: 999,
          oldPassword: TEST_ADMIN_PASSWORD,
          newPassword: 'abcdef1',
        })
      ).status,
    ).toBe(403);
  });

  it('AUTH-12: an administrator resets a password; the user is signed out and must change it at next sign-in', async () => {
    const { token: admin } = await t.login();
    const userId = await createUser(admin, '13900000011');
    await t.db.update(users).set({ setPasswordMust: false }).where(eq(users.userId, userId));
    const session = await t.login('13900000011', 'Passw0rd');
    const res = await t.call(admin, 'PUT', '/api/system/user/password/reset', { userId, newPassword: 'Reset123' });
    expect(res.body).toEqual({ code: 200, msg: '重置成功', data: null });
    expect((await t.call(session.token, 'GET', '/api/sys/login/getInfo')).status).toBe(401);
    const next = await t.login('13900000011', 'Reset123');
    expect(next.setPasswordMust).toBe(true);
    expect(
      (await t.call(admin, 'PUT', '/api/system/user/password/reset', { userId: 9999, newPassword: 'Reset123' })).status,
    ).toBe(404);
  });

  it('AUTH-10: a user who must change the password can reach only the account calls until it is changed', async () => {
    const fresh = await createTestApp({ keepAdminMustChange: true });
    try {
      const session = await fresh.login();
      expect(session.setPasswordMust).toBe(true);
      const blocked = await fresh.call(session.token, 'GET', '/api/system/users');
      expect(blocked.status).toBe(403);
      expect(blocked.body.msg).toBe('请先修改初始密码');
      expect((await fresh.call(session.token, 'GET', '/api/sys/login/getInfo')).body.data.user.setPasswordMust).toBe(
        true,
      );
      expect((await fresh.call(session.token, 'GET', '/api/sys/login/getRouters')).status).toBe(200);
      const changed = await fresh.call(session.token, 'PUT', '/api/system/user/password', {
        userId: session.user.userId,
        oldPassword: TEST_ADMIN_PASSWORD,
        newPassword: 'Changed@1',
      });
      expect(changed.status).toBe(200);
      expect((await fresh.call(session.token, 'GET', '/api/system/users')).status).toBe(200);
    } finally {
      await fresh.close();
    }
  });
});

describe('envelope and conventions', () => {
  it('HTTP-03: accepts and ignores the random _n parameter; unknown API paths answer a 404 envelope', async () => {
    const { token } = await t.login();
    expect((await t.call(token, 'GET', `/api/system/users?_n=${Math.random()}`)).status).toBe(200);
    const missing = await t.call(token, 'GET', '/api/nothing/here');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ code: 404, msg: '资源不存在', data: null });
  });

  it('serves the OpenAPI document to an administrator', async () => {
    const { token } = await t.login();
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/docs/json',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/api/ignore/sys/login', '/api/system/users', '/api/monitor/operlog/list']),
    );
  });
});
