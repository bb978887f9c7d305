import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.js';
import { users } from '../db/schema/index.js';
import { createTestApp, type TestApp } from '../test/test-app.js';

type Headers = Record<string, string | string[] | number | undefined>;

function directives(headers: Headers): Map<string, string> {
  const csp = String(headers['content-security-policy']);
  return new Map(
    csp
      .split(';')
      .map((d) => d.trim())
      .filter(Boolean)
      .map((d) => {
        const [name, ...values] = d.split(/\s+/);
        return [name!, values.join(' ')] as const;
      }),
  );
}

function expectStrictHeaders(headers: Headers) {
  const csp = directives(headers);
  expect(csp.get('default-src')).toBe("'self'");
  expect(csp.get('script-src')).toBe("'self'");
  expect(csp.get('script-src-attr')).toBe("'none'");
  expect(csp.get('object-src')).toBe("'none'");
  expect(csp.get('frame-ancestors')).toBe("'none'");
  expect(csp.get('base-uri')).toBe("'self'");
  expect(String(headers['content-security-policy'])).not.toMatch(/unsafe-eval/);
  expect(headers['x-content-type-options']).toBe('nosniff');
  expect(headers['x-frame-options']).toBe('DENY');
  expect(headers['referrer-policy']).toBe('same-origin');
}

describe('security headers', () => {
  let t: TestApp;
  let web: Awaited<ReturnType<typeof buildApp>>;
  const dist = fs.mkdtempSync(path.join(os.tmpdir(), 'edc-dist-'));

  beforeAll(async () => {
    fs.writeFileSync(path.join(dist, 'index.html'), '<!doctype html><title>EDC</title>');
    t = await createTestApp();
    web = await buildApp({ ...t.ctx, config: { ...t.ctx.config, webDist: dist } }, { serveWeb: true });
    await web.ready();
  });
  afterAll(async () => {
    await web.close();
    await t.close();
    fs.rmSync(dist, { recursive: true, force: true });
  });

  it('an API answer, an error envelope and a refused call carry the strict policy, without HSTS on plain HTTP', async () => {
    const { token } = await t.login();
    for (const res of [
      await t.app.inject({ url: '/api/sys/login/getInfo', headers: { authorization: `Bearer ${token}` } }),
      await t.app.inject({ url: '/api/nothing/here', headers: { authorization: `Bearer ${token}` } }),
      await t.app.inject({ url: '/api/sys/login/getInfo' }),
      await t.app.inject({ method: 'POST', url: '/api/ignore/sys/login', payload: { username: '' } }),
    ]) {
      expectStrictHeaders(res.headers);
      expect(res.headers['strict-transport-security']).toBeUndefined();
      expect(directives(res.headers).has('upgrade-insecure-requests')).toBe(false);
    }
  });

  it('the web app (index.html, also for client routes) allows no inline script; styles may be inline for antd', async () => {
    for (const url of ['/', '/sys/user']) {
      const res = await web.inject({ url });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/text\/html/);
      expectStrictHeaders(res.headers);
      expect(directives(res.headers).get('style-src')).toBe("'self' 'unsafe-inline'");
      // RECOG-16: the document camera's local service (calls and live view) is the one source outside our origin.
      expect(directives(res.headers).get('img-src')).toBe("'self' data: blob: http://127.0.0.1:* http://localhost:*");
      expect(directives(res.headers).get('connect-src')).toBe("'self' http://127.0.0.1:* http://localhost:*");
    }
  });

  it('HSTS and upgrade-insecure-requests only when TRUST_PROXY says TLS is in front', async () => {
    const behindTls = await buildApp({ ...t.ctx, config: { ...t.ctx.config, trustProxy: true } });
    try {
      const res = await behindTls.inject({ url: '/api/ignore/common/captcha' });
      expect(res.headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
      expect(directives(res.headers).has('upgrade-insecure-requests')).toBe(true);
      expectStrictHeaders(res.headers);
    } finally {
      await behindTls.close();
    }
  });
});

describe('API documentation (EDC_API_DOCS)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('by default answers only a signed-in system administrator: 401 without a token, 403 for a member', async () => {
    expect(t.ctx.config.apiDocs).toBe('admin');
    for (const url of ['/api/docs', '/api/docs/json', '/api/docs/static/swagger-initializer.js']) {
      const anonymous = await t.app.inject({ url });
      expect(anonymous.statusCode).toBe(401);
      expect(anonymous.json()).toEqual({ code: 401, msg: '登录超时', data: null });
    }
    const { token: admin } = await t.login();
    const role = await t.call(admin, 'POST', '/api/system/role', {
      roleName: '普通角色',
      roleKey: 'plain',
      menuIds: [],
    });
    const member = await t.call(admin, 'POST', '/api/system/user', {
      userName: '13900000099',
      password: 'Passw0rd',
      name: '测试用户',
      deptId: 1,
      roleIds: [role.body.data.roleId],
    });
    expect(member.status).toBe(200);
    await t.db.update(users).set({ setPasswordMust: false }).where(eq(users.userId, member.body.data.userId));
    const { token } = await t.login('13900000099', 'Passw0rd');
    expect(
      (await t.app.inject({ url: '/api/docs/json', headers: { authorization: `Bearer ${token}` } })).statusCode,
    ).toBe(403);

    const doc = await t.app.inject({ url: '/api/docs/json', headers: { authorization: `Bearer ${admin}` } });
    expect(doc.statusCode).toBe(200);
    expect(Object.keys(doc.json().paths)).toEqual(
      expect.arrayContaining(['/api/ignore/sys/login', '/api/system/users']),
    );
    expectStrictHeaders(doc.headers);
  });

  it('EDC_API_DOCS=public serves the page and the document to anyone, under the same policy', async () => {
    const open = await buildApp({ ...t.ctx, config: { ...t.ctx.config, apiDocs: 'public' } });
    try {
      const page = await open.inject({ url: '/api/docs' });
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain('swagger-ui-bundle.js');
      // Swagger UI loads its scripts from files: the strict script policy holds there too.
      expect(page.body).not.toMatch(/<script>(?!\s*<\/script>)/);
      expectStrictHeaders(page.headers);
      const doc = await open.inject({ url: '/api/docs/json' });
      expect(doc.statusCode).toBe(200);
      expect(doc.json().openapi).toMatch(/^3\./);
    } finally {
      await open.close();
    }
  });
});
