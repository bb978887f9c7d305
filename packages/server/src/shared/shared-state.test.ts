import crypto from 'node:crypto';
import net from 'node:net';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buttonKey } from '@ecrf/core';
import { auditEvents, menus, studyPersonnel, users } from '../db/schema/index.js';
import { LOCK_MS, MAX_FAILED_LOGINS, slowdownMs } from '../modules/auth/auth.service.js';
import { seedDemoStudy } from '../db/demo-study.js';
import { addStudyMember } from '../test/study-member.js';
import { ADMIN, TEST_ADMIN_PASSWORD, createTestApp, type TestApp } from '../test/test-app.js';
import { redisStore } from './kv.js';

/**
 * Two app servers on one database, as behind a load balancer: whatever one of them changes or counts, the other
 * honours at once. Run with the production default (shared state in the database) and, when a Redis answers on
 * 127.0.0.1:6379, with the shared state and rate limits in Redis.
 */

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

async function redisAnswers(): Promise<boolean> {
  const url = new URL(REDIS_URL);
  return new Promise((resolve) => {
    const socket = net.connect(Number(url.port || 6379), url.hostname);
    socket.setTimeout(1000);
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => (socket.destroy(), resolve(false)));
  });
}
const withRedis = await redisAnswers();

describe.each([
  { store: 'database', redis: false },
  { store: 'Redis', redis: true },
])('two app servers on one database, shared state in the $store', ({ redis }) => {
  let a: TestApp;
  let b: TestApp;
  let admin: string;
  // Each run its own key prefix, so runs sharing one Redis never see each other's counters.
  const prefix = `edc-test-${crypto.randomBytes(4).toString('hex')}:`;
  const kv = () => (redis ? { kv: redisStore(REDIS_URL, prefix) } : {});
  const config = { loginRateLimitPerMinute: 10_000, captchaRateLimitPerMinute: 10_000 };

  beforeAll(async () => {
    if (redis && !withRedis) return;
    a = await createTestApp({ config, ...kv() });
    b = await createTestApp({ config, database: a.database, ...kv() });
    const signedIn = await loginOn(a, ADMIN, TEST_ADMIN_PASSWORD);
    expect(signedIn.statusCode, signedIn.body).toBe(200);
    admin = signedIn.json().data.token;
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  const both = (ms: number) => {
    a.clock.advance(ms);
    b.clock.advance(ms);
  };
  const menuIdOf = async (code: string) => (await a.db.select().from(menus).where(eq(menus.code, code)))[0]!.menuId;

  async function userWithRole(userName: string, menuCodes: string[]) {
    const role = await a.call(admin, 'POST', '/api/system/role', {
      roleName: `角色${userName}`,
      roleKey: `role${userName}`,
      menuIds: await Promise.all(menuCodes.map(menuIdOf)),
    });
    expect(role.status, JSON.stringify(role.body)).toBe(200);
    const user = await a.call(admin, 'POST', '/api/system/user', {
      userName,
      password: 'Passw0rd',
      name: '两台服务器',
      deptId: 1,
      roleIds: [role.body.data.roleId],
    });
    expect(user.status, JSON.stringify(user.body)).toBe(200);
    await a.db.update(users).set({ setPasswordMust: false }).where(eq(users.userId, user.body.data.userId));
    return { roleId: role.body.data.roleId as number, userId: user.body.data.userId as number };
  }

  const loginOn = (t: TestApp, username: string, password: string) =>
    t.app.inject({ method: 'POST', url: '/api/ignore/sys/login', payload: { username, password } });

  it.skipIf(redis && !withRedis)(
    'a permission change made through A (role menus, role status, user roles) is honoured at once by B',
    async () => {
      const { roleId, userId } = await userWithRole('13700000001', ['sys.role']);
      const signedIn = await loginOn(b, '13700000001', 'Passw0rd');
      expect(signedIn.statusCode, signedIn.body).toBe(200);
      const onB = () => b.call(signedIn.json().data.token, 'GET', '/api/system/role/list');
      expect((await onB()).status).toBe(200);

      const roleBody = { roleId, roleName: '角色13700000001', roleKey: 'role13700000001' };
      expect((await a.call(admin, 'PUT', '/api/system/role', { ...roleBody, menuIds: [] })).status).toBe(200);
      expect((await onB()).status).toBe(403);
      const granted = await a.call(admin, 'PUT', '/api/system/role', {
        ...roleBody,
        menuIds: [await menuIdOf('sys.role')],
      });
      expect(granted.status).toBe(200);
      expect((await onB()).status).toBe(200);

      expect((await a.call(admin, 'PUT', '/api/system/role/status', { roleId, status: 1 })).status).toBe(200);
      expect((await onB()).status).toBe(403);
      expect((await a.call(admin, 'PUT', '/api/system/role/status', { roleId, status: 0 })).status).toBe(200);
      expect((await onB()).status).toBe(200);

      const moved = await a.call(admin, 'PUT', '/api/system/user', {
        userId,
        userName: '13700000001',
        name: '两台服务器',
        deptId: 1,
        roleIds: [(await userWithRole('13700000002', [])).roleId],
      });
      expect(moved.status, JSON.stringify(moved.body)).toBe(200);
      expect((await onB()).status).toBe(403);

      // Disabling the user through A ends its sessions on B at once too.
      expect((await a.call(admin, 'PUT', '/api/system/user/status', { userId, status: 1 })).status).toBe(200);
      expect((await onB()).status).toBe(401);
    },
  );

  it.skipIf(redis && !withRedis)(
    'a study membership removed through A is refused by B at once; a save applied on A is not applied again on B',
    async () => {
      await seedDemoStudy(a.db);
      const studyId = (await a.call(admin, 'GET', '/api/business/study/list')).body.data.list[0].id as number;
      const crfs = (await a.call(admin, 'GET', `/api/system/crf/list?studyId=${studyId}`)).body.data as {
        id: number;
        title: string;
      }[];
      const member = await addStudyMember(a, admin, studyId, '13700000003', {
        permissions: [buttonKey('business.subject.add')],
      });
      const onB = (token: string) => b.call(token, 'GET', `/api/v2/business/subject/crf?studyId=${studyId}`);
      expect((await onB(member)).status).toBe(200);
      const [row] = await a.db
        .select({ id: studyPersonnel.id })
        .from(studyPersonnel)
        .innerJoin(users, eq(users.userId, studyPersonnel.userId))
        .where(and(eq(studyPersonnel.studyId, studyId), eq(users.userName, '13700000003')));
      expect((await a.call(admin, 'DELETE', `/api/business/study_personnel?id=${row!.id}`)).status).toBe(200);
      expect((await onB(member)).status).toBe(403);

      // The applied-request record is in the database: a retry that lands on the other server finds it.
      const enrolled = await a.call(admin, 'POST', '/api/business/subject', {
        studyId,
        subjectName: '两台',
        gender: 1,
        diseaseCode: 'LSS',
      });
      expect(enrolled.status, JSON.stringify(enrolled.body)).toBe(200);
      const save = {
        subjectRecordId: enrolled.body.data.subjectRecordId,
        crfId: crfs.find((crf) => crf.title === '实验室检查')!.id,
        version: 0,
        values: { hb: 131 },
        requestId: crypto.randomUUID(),
      };
      const first = await a.call(admin, 'PUT', '/api/v3/business/crf', save);
      expect(first.status, JSON.stringify(first.body)).toBe(200);
      const retried = await b.call(admin, 'PUT', '/api/v3/business/crf', save);
      expect(retried.status, JSON.stringify(retried.body)).toBe(200);
      expect(retried.body.data).toMatchObject({
        crfDataRecordId: first.body.data.crfDataRecordId,
        version: first.body.data.version,
      });
      const audited = await a.db
        .select()
        .from(auditEvents)
        .where(and(eq(auditEvents.crfDataRecordId, first.body.data.crfDataRecordId), eq(auditEvents.itemName, 'hb')));
      expect(audited).toHaveLength(1);
    },
  );

  it.skipIf(redis && !withRedis)('sign-in failures on A and B count together: the lockout holds on both', async () => {
    await userWithRole('13700000004', []);
    const servers = [a, b];
    for (let i = 0; i < MAX_FAILED_LOGINS - 1; i++) {
      const res = await loginOn(servers[i % 2]!, '13700000004', 'wrong-password');
      expect(res.statusCode, res.body).toBe(400);
      both(slowdownMs(i + 1));
    }
    const last = await loginOn(servers[(MAX_FAILED_LOGINS - 1) % 2]!, '13700000004', 'wrong-password');
    expect(last.statusCode, last.body).toBe(423);
    for (const t of servers) expect((await loginOn(t, '13700000004', 'Passw0rd')).statusCode).toBe(423);
    both(LOCK_MS + 1);
    if (redis) await a.ctx.kv.del('login:lock:13700000004|127.0.0.1'); // Redis expires by its own clock
    expect((await loginOn(b, '13700000004', 'Passw0rd')).statusCode).toBe(200);
  });

  it.skipIf(redis && !withRedis)('a captcha issued by A is answered on B, once', async () => {
    const ca = await createTestApp({ captcha: true, config, database: a.database, ...kv() });
    const cb = await createTestApp({ captcha: true, config, database: a.database, ...kv() });
    try {
      const captcha = (await ca.app.inject({ method: 'GET', url: '/api/ignore/common/captcha' })).json().data;
      expect(captcha.captchaEnabled).toBe(true);
      // The answer as a person reads it from the picture.
      const code = await ca.ctx.kv.get(`captcha:${captcha.uuid}`);
      expect(code).toBeTruthy();
      const signIn = (t: TestApp) =>
        t.app.inject({
          method: 'POST',
          url: '/api/ignore/sys/login',
          payload: { username: ADMIN, password: TEST_ADMIN_PASSWORD, code, uuid: captcha.uuid },
        });
      expect((await signIn(cb)).statusCode).toBe(200);
      expect((await signIn(ca)).statusCode).toBe(400);
    } finally {
      await cb.close();
      await ca.close();
    }
  });

  it.skipIf(!redis || !withRedis)('per-address rate limits count across both servers in Redis', async () => {
    const limited = { captchaRateLimitPerMinute: 3 };
    const la = await createTestApp({
      captcha: true,
      config: { ...config, ...limited },
      kv: redisStore(REDIS_URL, prefix + 'rl:'),
    });
    const lb = await createTestApp({
      captcha: true,
      config: { ...config, ...limited },
      database: la.database,
      kv: redisStore(REDIS_URL, prefix + 'rl:'),
    });
    try {
      const fetchOn = (t: TestApp) =>
        t.app.inject({ method: 'GET', url: '/api/ignore/common/captcha', remoteAddress: '10.20.30.40' });
      const answers = [];
      for (const t of [la, lb, la, lb]) answers.push((await fetchOn(t)).statusCode);
      expect(answers).toEqual([200, 200, 200, 429]);
    } finally {
      await lb.close();
      await la.close();
    }
  });
});
