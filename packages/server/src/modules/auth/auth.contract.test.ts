import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  captchaSchema,
  loginResultSchema,
  menuNodeSchema,
  sysUserSchema,
  tokenPairSchema,
  userInfoSchema,
} from '@ecrf/core';
import { contractData } from '../../test/contract.js';
import { ADMIN, TEST_ADMIN_PASSWORD, createTestApp, type TestApp } from '../../test/test-app.js';

/** The shared response schemas of core's sign-in contract (account.ts) match what the auth routes answer. */

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ captcha: true });
});
afterAll(() => t.close());

// The signed-in profile: every field of a user but the list's createTime, roleIds and roleNames.
const profile = sysUserSchema.omit({ createTime: true, roleIds: true, roleNames: true }).required().strict();

describe('auth contract', () => {
  it('captcha, sign-in, refresh, the user and their menus', async () => {
    const captcha = await t.app.inject({ method: 'GET', url: '/api/ignore/common/captcha' });
    const issued = contractData(captchaSchema, { status: captcha.statusCode, body: captcha.json() });
    expect(issued.captchaEnabled).toBe(true);
    const answer = await t.ctx.kv.get(`captcha:${issued.uuid}`);

    const signedIn = await t.app.inject({
      method: 'POST',
      url: '/api/ignore/sys/login',
      payload: { username: ADMIN, password: TEST_ADMIN_PASSWORD, code: answer, uuid: issued.uuid },
    });
    const result = contractData(loginResultSchema.extend({ user: profile }).strict(), {
      status: signedIn.statusCode,
      body: signedIn.json(),
    });

    const refreshed = await t.app.inject({
      method: 'POST',
      url: '/api/ignore/sys/refresh',
      payload: { refreshToken: result.refreshToken },
    });
    const tokens = contractData(tokenPairSchema.strict(), { status: refreshed.statusCode, body: refreshed.json() });

    const info = contractData(
      userInfoSchema.extend({ user: profile }).required().strict(),
      await t.call(tokens.token, 'GET', '/api/sys/login/getInfo'),
    );
    expect(info.user.userName).toBe(ADMIN);
    const menus = contractData(z.array(menuNodeSchema), await t.call(tokens.token, 'GET', '/api/sys/login/getRouters'));
    expect(menus.length).toBeGreaterThan(0);
  });
});
