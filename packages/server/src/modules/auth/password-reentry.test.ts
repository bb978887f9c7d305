import { eq, like, or } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buttonKey } from '@ecrf/core';
import { kvEntries, sessions, users } from '../../db/schema/index.js';
import { enrolDemoPatient, openDemoStudy } from '../../test/demo.js';
import { addStudyMember } from '../../test/study-member.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';
import { LOCK_MS, MAX_FAILED_LOGINS, slowdownMs } from './password-attempts.service.js';

/**
 * The password typed again inside a session (signature, password change, emergency and full unblinding) counts
 * with sign-in's failures: a stolen session cannot guess the password through it.
 */
let t: TestApp;
let studyId: number;
let subjectRecordId: number;
let nextUser = 0;

const PASSWORD = 'Passw0rd';
const THIEF = '198.51.100.40';
const ELSEWHERE = '192.0.2.41';
const LOCKED_AT_LIMIT = `密码错误次数过多，账号已锁定，请${LOCK_MS / 60000}分钟后再试`;

beforeAll(async () => {
  t = await createTestApp();
  const demo = await openDemoStudy(t);
  studyId = demo.studyId;
  ({ subjectRecordId } = await enrolDemoPatient(t, demo.admin, studyId, { subjectName: '钱九' }));
});
afterAll(() => t.close());

/** A study member who may sign, unblind one patient and unblind all; answers the user name and id. */
async function member() {
  const userName = `1350000${String(++nextUser).padStart(4, '0')}`;
  // The clock moves by lock periods between tests: a fresh administrator token each time.
  const admin = (await t.login()).token;
  await addStudyMember(t, admin, studyId, userName, {
    permissions: [
      buttonKey('business.crf.sign'),
      buttonKey('business.randomization.emergency'),
      buttonKey('business.randomization.unblindAll'),
    ],
  });
  const [user] = await t.db.select({ userId: users.userId }).from(users).where(eq(users.userName, userName));
  return { userName, userId: user!.userId };
}

async function loginFrom(ip: string, username: string, password = PASSWORD) {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/ignore/sys/login',
    remoteAddress: ip,
    payload: { username, password },
  });
  return { status: res.statusCode, body: res.json(), token: res.json().data?.token as string };
}

async function call(ip: string, token: string, method: 'GET' | 'PUT', url: string, payload?: object) {
  const res = await t.app.inject({
    method,
    url,
    remoteAddress: ip,
    headers: { authorization: `Bearer ${token}` },
    ...(payload ? { payload } : {}),
  });
  return { status: res.statusCode, body: res.json() as { code: number; msg: string; data: any } };
}

interface Point {
  id: string;
  name: string;
  /** The call's own answer to a wrong password below the limit. */
  wrong: string;
  send(ip: string, token: string, password: string): ReturnType<typeof call>;
  /** The answer once the password is accepted (the unblinding calls then stop at their next rule). */
  passed: { status: number; msg: string };
}

const POINTS: Point[] = [
  {
    id: 'SUBJ-23',
    name: 'the electronic signature (PUT /api/v1/business/subject/sign)',
    wrong: '密码错误，签名未完成',
    send: (ip, token, password) =>
      call(ip, token, 'PUT', '/api/v1/business/subject/sign', { subjectRecordId, password }),
    passed: { status: 200, msg: '签名成功' },
  },
  {
    id: 'AUTH-11',
    name: 'the password change (PUT /api/system/user/password)',
    wrong: '原始密码错误',
    send: (ip, token, password) =>
      call(ip, token, 'PUT', '/api/system/user/password', { oldPassword: password, newPassword: 'Changed99' }),
    passed: { status: 200, msg: '修改成功' },
  },
  {
    id: 'RAND-06',
    name: 'the emergency unblinding (PUT /api/business/randomization/unblind)',
    wrong: '密码错误，揭盲未完成',
    send: (ip, token, password) =>
      call(ip, token, 'PUT', '/api/business/randomization/unblind', {
        studyId,
        subjectId: 1,
        password,
        reason: '严重不良事件',
      }),
    passed: { status: 404, msg: '该患者尚未随机入组' },
  },
  {
    id: 'RAND-06',
    name: '全部揭盲 (PUT /api/business/randomization/unblind/all)',
    wrong: '密码错误，揭盲未完成',
    send: (ip, token, password) =>
      call(ip, token, 'PUT', '/api/business/randomization/unblind/all', {
        studyId,
        password,
        confirmText: '不是项目名称',
      }),
    passed: { status: 400, msg: '确认文字与项目名称不一致' },
  },
];

const point = (name: string) => POINTS.find((p) => p.name.startsWith(name))!;
const getInfo = (ip: string, token: string) => call(ip, token, 'GET', '/api/sys/login/getInfo');

async function liveSessions(userId: number) {
  const rows = await t.db.select().from(sessions).where(eq(sessions.userId, userId));
  return rows.filter((s) => s.revokedAt === null).length;
}

describe('a password re-entered inside a session counts with sign-in failures', () => {
  for (const p of POINTS) {
    it(`${p.id}: ${MAX_FAILED_LOGINS} wrong passwords at ${p.name} lock the user, even against the right password, and end every session of the user (401)`, async () => {
      const { userName, userId } = await member();
      const stolen = (await loginFrom(THIEF, userName)).token;
      const ownDevice = (await loginFrom(ELSEWHERE, userName)).token;

      for (let i = 1; i < MAX_FAILED_LOGINS; i++) {
        const res = await p.send(THIEF, stolen, `guess-${i}`);
        expect(res.status, JSON.stringify(res.body)).toBe(400);
        expect(res.body.msg).toBe(p.wrong);
        t.clock.advance(slowdownMs(i));
      }
      const limit = await p.send(THIEF, stolen, `guess-${MAX_FAILED_LOGINS}`);
      expect(limit.status).toBe(423);
      expect(limit.body).toMatchObject({ code: 423, msg: LOCKED_AT_LIMIT });

      // The stolen token and every other session of the user stop at once.
      expect((await getInfo(THIEF, stolen)).status).toBe(401);
      expect((await getInfo(ELSEWHERE, ownDevice)).status).toBe(401);
      expect(await liveSessions(userId)).toBe(0);

      // Sign-in from the guessing address is locked as after failed sign-ins; the user signs in elsewhere,
      // but the re-entry stays locked everywhere, the right password included.
      expect((await loginFrom(THIEF, userName)).status).toBe(423);
      const again = await loginFrom(ELSEWHERE, userName);
      expect(again.status).toBe(200);
      const locked = await p.send(ELSEWHERE, again.token, PASSWORD);
      expect(locked.status).toBe(423);
      expect(locked.body.msg).toMatch(/^密码错误次数过多，账号已锁定，请\d+分钟后再试$/);

      t.clock.advance(LOCK_MS);
      const after = await p.send(ELSEWHERE, again.token, PASSWORD);
      expect({ status: after.status, msg: after.body.msg }).toEqual(p.passed);
    });
  }

  it('failures at sign-in and at every re-entry add up in one count per user name and address, kept in the database', async () => {
    const { userName, userId } = await member();
    const stolen = (await loginFrom(THIEF, userName)).token;

    const signIn = await loginFrom(THIEF, userName, 'guess-1');
    expect(signIn.body.msg).toBe(`用户名或密码错误，还可尝试${MAX_FAILED_LOGINS - 1}次`);
    t.clock.advance(slowdownMs(1));
    expect((await point('the electronic signature').send(THIEF, stolen, 'guess-2')).status).toBe(400);
    // The slow-down of sign-in holds for re-entries too, and a refused early try is not counted.
    const early = await point('the emergency').send(THIEF, stolen, PASSWORD);
    expect(early.status).toBe(429);
    expect(early.body.msg).toBe('请求过于频繁，请稍后再试');
    t.clock.advance(slowdownMs(2));
    expect((await point('the password change').send(THIEF, stolen, 'guess-3')).status).toBe(400);
    t.clock.advance(slowdownMs(3));
    expect((await point('the emergency').send(THIEF, stolen, 'guess-4')).status).toBe(400);
    const keys = (
      await t.db
        .select({ key: kvEntries.key })
        .from(kvEntries)
        .where(or(like(kvEntries.key, `login:%${userName}%`), like(kvEntries.key, `reauth:%:${userId}`)))
    ).map((r) => r.key);
    expect(keys).toEqual(
      expect.arrayContaining([
        `login:fail:${userName}|${THIEF}`,
        `reauth:fail:${userId}`,
        `login:wait:${userName}|${THIEF}`,
      ]),
    );
    t.clock.advance(slowdownMs(4));

    const fifth = await point('全部揭盲').send(THIEF, stolen, 'guess-5');
    expect(fifth.status).toBe(423);
    expect(fifth.body.msg).toBe(LOCKED_AT_LIMIT);
    expect((await getInfo(THIEF, stolen)).status).toBe(401);
    expect((await loginFrom(THIEF, userName)).status).toBe(423);
    t.clock.advance(LOCK_MS);
  });

  it('re-entries count per user whatever the address: a thief moving from address to address is locked out at the same limit', async () => {
    const { userName } = await member();
    const stolen = (await loginFrom(THIEF, userName)).token;
    const sign = point('the electronic signature');
    for (let i = 1; i < MAX_FAILED_LOGINS; i++) {
      expect((await sign.send(`203.0.113.${i}`, stolen, `guess-${i}`)).body.msg).toBe(sign.wrong);
    }
    expect((await sign.send(`203.0.113.${MAX_FAILED_LOGINS}`, stolen, 'guess-5')).status).toBe(423);
    expect((await getInfo('203.0.113.99', stolen)).status).toBe(401);
    t.clock.advance(LOCK_MS);
  });

  it('concurrent guesses through a re-entry: fewer than the limit are answered as wrong passwords before the lock', async () => {
    const { userName } = await member();
    const stolen = (await loginFrom(THIEF, userName)).token;
    const sign = point('the electronic signature');
    const burst = await Promise.all(
      Array.from({ length: 2 * MAX_FAILED_LOGINS }, (_, i) => sign.send(THIEF, stolen, `burst-${i}`)),
    );
    // A request of the burst that is authenticated after another one locked the account finds its session ended
    // by the lock (401), as every later request of the stolen session does.
    for (const res of burst) expect([400, 401, 423, 429]).toContain(res.status);
    let wrongAnswers = burst.filter((r) => r.status === 400).length;
    expect(wrongAnswers).toBeLessThan(MAX_FAILED_LOGINS);
    if (burst.some((r) => r.status === 401)) expect(burst.some((r) => r.status === 423)).toBe(true);
    // Whatever the burst left undone, guesses one at a time reach the lock.
    let locked = burst.some((r) => r.status === 423);
    for (let i = 0; !locked && i < MAX_FAILED_LOGINS; i++) {
      t.clock.advance(60_000);
      const res = await sign.send(THIEF, stolen, `after-${i}`);
      if (res.status === 400) wrongAnswers += 1;
      else locked = res.status === 423;
    }
    expect(locked).toBe(true);
    // Each attempt is counted before its password is checked: at most the limit are checked in all (the last
    // ones answer the lock), whichever of the concurrent requests got there first.
    expect(wrongAnswers).toBeLessThan(MAX_FAILED_LOGINS);
    expect((await getInfo(THIEF, stolen)).status).toBe(401);
    t.clock.advance(LOCK_MS);
  });

  it('a right password clears the count, as a successful sign-in does', async () => {
    const { userName } = await member();
    const token = (await loginFrom(THIEF, userName)).token;
    const sign = point('the electronic signature');
    for (let round = 0; round < 2; round++) {
      for (let i = 1; i < MAX_FAILED_LOGINS; i++) {
        expect((await sign.send(THIEF, token, `guess-${i}`)).status).toBe(400);
        t.clock.advance(slowdownMs(i));
      }
      expect((await sign.send(THIEF, token, PASSWORD)).status).toBe(200);
    }
    expect((await getInfo(THIEF, token)).status).toBe(200);
  });
});
