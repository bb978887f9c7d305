import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from './app.js';
import { createTestApp, type TestApp } from './test/test-app.js';

describe('serving the web app', () => {
  let t: TestApp;
  let web: Awaited<ReturnType<typeof buildApp>>;
  const dist = fs.mkdtempSync(path.join(os.tmpdir(), 'edc-dist-'));

  beforeAll(async () => {
    fs.writeFileSync(path.join(dist, 'index.html'), '<!doctype html><title>EDC</title>');
    fs.mkdirSync(path.join(dist, 'assets'));
    fs.writeFileSync(path.join(dist, 'assets', 'app.js'), 'console.log(1)');
    t = await createTestApp();
    web = await buildApp({ ...t.ctx, config: { ...t.ctx.config, webDist: dist } }, { serveWeb: true });
    await web.ready();
  });
  afterAll(async () => {
    await web.close();
    await t.close();
    fs.rmSync(dist, { recursive: true, force: true });
  });

  it('serves files, answers index.html for client routes, and keeps API 404s as envelopes', async () => {
    expect((await web.inject({ url: '/assets/app.js' })).body).toBe('console.log(1)');
    const root = await web.inject({ url: '/' });
    expect(root.statusCode).toBe(200);
    expect(root.body).toContain('<title>EDC</title>');
    const route = await web.inject({ url: '/sys/user?x=1' });
    expect(route.statusCode).toBe(200);
    expect(route.headers['content-type']).toMatch(/text\/html/);
    expect(route.body).toContain('<title>EDC</title>');
    const api = await web.inject({ url: '/api/ignore/nothing' });
    expect(api.statusCode).toBe(404);
    expect(api.json()).toEqual({ code: 404, msg: '资源不存在', data: null });
  });
});
