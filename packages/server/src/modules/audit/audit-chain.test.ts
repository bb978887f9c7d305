import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ConfigError, loadConfig } from '../../config.js';
import { APP_ROLE, assertAppRoleConfined, queryRows, wrapPostgres } from '../../db/client.js';
import { auditChainHeads, auditEvents, users } from '../../db/schema/index.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';
import {
  appendChained,
  canonicalJson,
  chainRows,
  rowHash,
  sealUnchainedRows,
  verifyAuditChains,
  type ChainReport,
} from './audit-chain.js';
import { openDemoStudy } from '../../test/demo.js';

let t: TestApp;
let admin: string;
let studyId: number;
const crfIds: Record<string, number> = {};

beforeAll(async () => {
  t = await createTestApp();
  const demo = await openDemoStudy(t);
  ({ admin, studyId } = demo);
  Object.assign(crfIds, demo.crfIds);
});
afterAll(() => t.close());

async function enrol(name = '孙七') {
  const res = await t.call(admin, 'POST', '/api/business/subject', {
    studyId,
    subjectName: name,
    gender: 0,
    diseaseCode: 'LSS',
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data as { subjectRecordId: number };
}

const save = (body: object) => t.call(admin, 'PUT', '/api/v3/business/crf', body);

async function verifyByApi(): Promise<ChainReport & { text: string }> {
  const res = await t.call(admin, 'GET', '/api/monitor/audit/verify');
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
}

/** The database's own message (the ORM wraps it in "Failed query: …"). */
async function refusal(work: Promise<unknown>): Promise<string> {
  try {
    await work;
  } catch (err) {
    const cause = (err as { cause?: { message?: string } }).cause;
    return cause?.message ?? (err as Error).message;
  }
  return 'not refused';
}

/** What a database console with the owner's rights can do; the application's role cannot. */
async function asOwnerWithoutTrigger(statement: ReturnType<typeof sql>) {
  await t.asOwner((owner) =>
    owner.transaction(async (tx) => {
      await tx.execute(sql`alter table audit_events disable trigger audit_events_no_update_delete`);
      await tx.execute(statement);
      await tx.execute(sql`alter table audit_events enable trigger audit_events_no_update_delete`);
    }),
  );
}

/** Rewrites the chain's tampered rows back from a copy, so later tests start from a sound trail. */
async function restore(rows: Awaited<ReturnType<typeof chainRows>>) {
  for (const row of rows) {
    await asOwnerWithoutTrigger(
      sql`update audit_events set new_value = ${row.newValue === null ? null : JSON.stringify(row.newValue)}::jsonb where id = ${row.id}`,
    );
  }
}

describe('the application runs as a database role that cannot rewrite the audit trail', () => {
  it(`the app's queries run as ${APP_ROLE} (on PostgreSQL as the application's own login, a member of it): not a superuser, owner of no table, no UPDATE or DELETE on audit_events`, async () => {
    const [me] = await queryRows<{
      role: string;
      appRights: boolean;
      superuser: boolean;
      owned: number;
      canUpdate: boolean;
      canDelete: boolean;
      canInsert: boolean;
    }>(
      t.db,
      sql`select current_user as role,
        pg_has_role(current_user, ${sql.raw(`'${APP_ROLE}'`)}, 'USAGE') as "appRights",
        (select rolsuper from pg_roles where rolname = current_user) as superuser,
        (select count(*)::int from pg_class c join pg_namespace n on n.oid = c.relnamespace
           where n.nspname = 'public' and pg_has_role(current_user, c.relowner, 'USAGE')) as owned,
        has_table_privilege('audit_events', 'UPDATE') as "canUpdate",
        has_table_privilege('audit_events', 'DELETE') as "canDelete",
        has_table_privilege('audit_events', 'INSERT') as "canInsert"`,
    );
    expect(me).toEqual({
      // The test apps on PostgreSQL log in as the run's application login, as docs/deployment.md sets one up.
      role: process.env.TEST_DATABASE_URL ? inject('postgresAppLogin').user : APP_ROLE,
      appRights: true,
      superuser: false,
      owned: 0,
      canUpdate: false,
      canDelete: false,
      canInsert: true,
    });
  });

  it('UPDATE, DELETE and TRUNCATE of audit rows, session_replication_role=replica and DISABLE TRIGGER are all refused to it', async () => {
    const { subjectRecordId } = await enrol();
    expect((await save({ subjectRecordId, crfId: crfIds['生命体征']!, version: 0, values: { hr: 72 } })).status).toBe(
      200,
    );
    const attempts = [
      sql`update audit_events set reason = 'rewritten' where study_id = ${studyId}`,
      sql`delete from audit_events where study_id = ${studyId}`,
      sql`truncate audit_events`,
      sql`alter table audit_events disable trigger audit_events_no_update_delete`,
      sql`alter table audit_events disable trigger all`,
      sql`set session_replication_role = replica`,
    ];
    for (const attempt of attempts) {
      expect(await refusal(t.db.execute(attempt))).toMatch(/permission denied|must be owner/);
    }
    expect(
      await refusal(
        t.db.transaction(async (tx) => {
          await tx.execute(sql`set local session_replication_role = replica`);
        }),
      ),
    ).toMatch(/permission denied/);
    // Nothing above changed a row, and the application still saves and audits as before.
    expect((await t.db.select().from(auditEvents).where(eq(auditEvents.reason, 'rewritten'))).length).toBe(0);
    const again = await save({ subjectRecordId, crfId: crfIds['实验室检查']!, version: 0, values: { hb: 131 } });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect((await verifyByApi()).ok).toBe(true);
  });
});

describe('the application role at start-up', () => {
  it("the server accepts the app role and refuses to run with the owner's rights", async () => {
    await expect(assertAppRoleConfined(t.db)).resolves.toBeUndefined();
    await expect(t.asOwner((owner) => assertAppRoleConfined(owner))).rejects.toThrow(/can rewrite the audit trail/);
  });

  it('the role name, spliced into GRANT statements, must be a plain identifier (DATABASE_APP_ROLE)', () => {
    expect(loadConfig({ DATA_DIR: '/tmp/x' }).databaseAppRole).toBe(APP_ROLE);
    expect(loadConfig({ DATA_DIR: '/tmp/x', DATABASE_APP_ROLE: 'edc_app_site2' }).databaseAppRole).toBe(
      'edc_app_site2',
    );
    expect(() => loadConfig({ DATA_DIR: '/tmp/x', DATABASE_APP_ROLE: 'edc; drop table audit_events' })).toThrow(
      ConfigError,
    );
    expect(() => wrapPostgres('postgres://edc@127.0.0.1:1/edc', undefined, 'Edc-App')).toThrow(
      /Invalid database role name/,
    );
  });

  it.skipIf(!process.env.TEST_DATABASE_URL)(
    'on PostgreSQL with DATABASE_APP_URL the app logs in as its own role and cannot switch to the owner',
    async () => {
      const [{ database }] = await t.asOwner((owner) =>
        queryRows<{ database: string }>(owner, sql`select current_database() as database`),
      );
      const login = `edc_t_login_${Date.now().toString(36)}`;
      await t.asOwner((owner) => owner.execute(sql.raw(`create role ${login} login in role ${APP_ROLE}`)));
      const url = (user: string) => {
        const u = new URL(process.env.TEST_DATABASE_URL!);
        u.pathname = `/${database}`;
        u.username = user;
        return u.toString();
      };
      const separate = wrapPostgres(url(new URL(process.env.TEST_DATABASE_URL!).username), url(login));
      try {
        await assertAppRoleConfined(separate.db);
        expect(await refusal(separate.db.execute(sql`update audit_events set reason = 'x'`))).toMatch(
          /permission denied/,
        );
        // Unlike a switched owner connection, there is no owner to go back to.
        await separate.db.execute(sql`reset role`);
        const [me] = await queryRows<{ role: string }>(separate.db, sql`select current_user as role`);
        expect(me!.role).toBe(login);
        expect(await refusal(separate.db.execute(sql`set role postgres`))).toMatch(/permission denied/);
        expect((await t.call(admin, 'GET', '/api/monitor/audit/verify')).body.data.ok).toBe(true);
      } finally {
        await separate.close();
        await t.asOwner((owner) => owner.execute(sql.raw(`drop role ${login}`)));
      }
    },
  );
});

describe('the audit trail is a hash chain per study', () => {
  it('every row links to the previous row of its study and hashes its own content; the check answers OK', async () => {
    const { subjectRecordId } = await enrol('周八');
    const first = await save({ subjectRecordId, crfId: crfIds['生命体征']!, version: 0, values: { hr: 64, sbp: 120 } });
    expect(first.status).toBe(200);
    const rows = await chainRows(t.db, eq(auditEvents.studyId, studyId));
    expect(rows.length).toBeGreaterThan(2);
    let prev: string | null = null;
    for (const row of rows) {
      expect(row.prevHash).toBe(prev);
      expect(row.hash).toBe(rowHash(row, prev));
      prev = row.hash;
    }
    const [head] = await t.db.select().from(auditChainHeads).where(eq(auditChainHeads.studyId, studyId));
    expect(head).toMatchObject({ hash: prev, lastId: rows[rows.length - 1]!.id, rowCount: rows.length });

    const report = await verifyByApi();
    expect(report.ok).toBe(true);
    expect(report.firstBreak).toBeNull();
    expect(report.studies.find((s) => s.studyId === studyId)).toMatchObject({
      rows: rows.length,
      head: prev,
      broken: null,
    });
    expect(report.text).toMatch(new RegExp(`OK ${report.rows} rows$`));
  });

  it('a value changed by the owner with the trigger lifted is reported at that row: content does not match its hash', async () => {
    const rows = await chainRows(t.db, eq(auditEvents.studyId, studyId));
    const victim = rows.find((r) => r.action === 'item.update' || r.newValue !== null)!;
    await asOwnerWithoutTrigger(sql`update audit_events set new_value = '"forged"'::jsonb where id = ${victim.id}`);

    const report = await verifyByApi();
    expect(report.ok).toBe(false);
    expect(report.firstBreak).toMatchObject({ studyId, rowId: victim.id, kind: 'content', found: victim.hash });
    expect(report.firstBreak!.expected).not.toBe(victim.hash);
    expect(report.text).toContain(`BROKEN study ${studyId}, row ${victim.id}: content does not match its hash`);
    expect((await verifyAuditChains(t.db)).firstBreak).toEqual(report.firstBreak);

    await restore([victim]);
    expect((await verifyByApi()).ok).toBe(true);
  });

  it('a row deleted by the owner breaks the link at the row after it; a re-hashed forgery still breaks the next link', async () => {
    const { subjectRecordId } = await enrol('吴九');
    expect((await save({ subjectRecordId, crfId: crfIds['生命体征']!, version: 0, values: { hr: 80 } })).status).toBe(
      200,
    );
    const rows = await chainRows(t.db, eq(auditEvents.studyId, studyId));
    const [victim, next] = rows.slice(-2);

    // The forger recomputes the tampered row's own hash, but the row after it still names the old one.
    const forged = { ...victim!, reason: 'forged' };
    await asOwnerWithoutTrigger(
      sql`update audit_events set reason = 'forged', hash = ${rowHash(forged, forged.prevHash)} where id = ${victim!.id}`,
    );
    let report = await verifyByApi();
    expect(report.firstBreak).toMatchObject({
      studyId,
      rowId: next!.id,
      kind: 'link',
      expected: rowHash(forged, forged.prevHash),
      found: victim!.hash,
    });
    await asOwnerWithoutTrigger(
      sql`update audit_events set reason = ${victim!.reason}, hash = ${victim!.hash} where id = ${victim!.id}`,
    );
    expect((await verifyByApi()).ok).toBe(true);

    // The last row cut off: the chain head no longer matches the last row.
    await asOwnerWithoutTrigger(sql`delete from audit_events where id = ${next!.id}`);
    report = await verifyByApi();
    expect(report.firstBreak).toMatchObject({
      studyId,
      rowId: null,
      kind: 'head',
      expected: victim!.hash,
      found: next!.hash,
    });
    expect(report.text).toContain('chain head does not match the last row');
    // Put it back exactly as it was, so the chain holds for the following tests.
    await t.asOwner((owner) =>
      owner
        .insert(auditEvents)
        .values({ ...next!, oldValue: next!.oldValue ?? null, newValue: next!.newValue ?? null }),
    );
    expect((await verifyByApi()).ok).toBe(true);
  });

  it('a burst of concurrent saves in one study makes one unforked chain', async () => {
    const patients = await Promise.all(['郑一', '王二', '冯三', '陈四'].map((name) => enrol(name)));
    const saves = patients.flatMap(({ subjectRecordId }, i) =>
      ['生命体征', '实验室检查'].map((title, j) =>
        save({
          subjectRecordId,
          crfId: crfIds[title]!,
          version: 0,
          values: title === '生命体征' ? { hr: 60 + i + j } : { hb: 120 + i },
        }),
      ),
    );
    const answers = await Promise.all(saves);
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
    const report = await verifyByApi();
    expect(report.ok, report.text).toBe(true);
    const [{ n }] = await queryRows<{ n: number }>(
      t.db,
      sql`select count(*)::int as n from audit_events where study_id = ${studyId}`,
    );
    expect(report.studies.find((s) => s.studyId === studyId)!.rows).toBe(n);
    const [{ forks }] = await queryRows<{ forks: number }>(
      t.db,
      sql`select count(*)::int as forks from (select prev_hash from audit_events where study_id = ${studyId} group by prev_hash having count(*) > 1) f`,
    );
    expect(forks).toBe(0);
  });

  it.skipIf(!process.env.TEST_DATABASE_URL)(
    'a transaction that audits and then waits for a row another one holds does not deadlock when that one audits too',
    async () => {
      const row = (action: string) => ({
        studyId,
        subjectRecordId: null,
        crfDataRecordId: null,
        crfId: null,
        crfVersion: null,
        action,
        itemName: null,
        oldValue: null,
        newValue: null,
        reason: null,
        userId: 1,
        userName: '系统管理员(13800000000)',
        createdAt: t.clock(),
      });
      let letHolderFinish!: () => void;
      const holderMayFinish = new Promise<void>((resolve) => (letHolderFinish = resolve));
      let holderHasRow!: () => void;
      const rowHeld = new Promise<void>((resolve) => (holderHasRow = resolve));
      // Like a query reply: locks its row first, audits afterwards.
      const holder = t.db.transaction(async (tx) => {
        await tx.execute(sql`select 1 from users where user_id = 1 for update`);
        holderHasRow();
        await holderMayFinish;
        await appendChained(tx, [row('test.holder')]);
      });
      await rowHeld;
      // Like a save: audits first, then needs the row the other one holds.
      const waiter = t.db.transaction(async (tx) => {
        await appendChained(tx, [row('test.waiter')]);
        await tx.execute(sql`select 1 from users where user_id = 1 for update`);
      });
      const waiting = () =>
        t.asOwner((owner) =>
          queryRows<{ n: number }>(
            owner,
            sql`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`,
          ),
        );
      for (let tries = 0; (await waiting())[0]!.n === 0; tries++) {
        if (tries > 500) throw new Error('the second transaction never waited for the row');
        await new Promise((resolve) => setImmediate(resolve));
      }
      letHolderFinish();
      await Promise.all([holder, waiter]);
      expect((await verifyByApi()).ok).toBe(true);
    },
  );

  it('rows written before the chain existed are chained at start-up (as the owner), oldest first', async () => {
    const legacyStudy = 900_001;
    await t.asOwner((owner) =>
      owner.insert(auditEvents).values(
        [1, 2, 3].map((i) => ({
          studyId: legacyStudy,
          action: 'item.update',
          itemName: `q${i}`,
          oldValue: { b: 1, a: [i] },
          newValue: 'x',
          userId: 1,
          userName: '管理员(13800000000)',
          createdAt: new Date(Date.UTC(2025, 0, i, 8, 0, 0, 123)),
        })),
      ),
    );
    let report = await verifyByApi();
    expect(report.firstBreak).toMatchObject({ studyId: legacyStudy, kind: 'unchained' });

    expect(await t.asOwner(sealUnchainedRows)).toBe(3);
    report = await verifyByApi();
    expect(report.ok, report.text).toBe(true);
    expect(report.studies.find((s) => s.studyId === legacyStudy)!.rows).toBe(3);
    // Sealing again finds nothing, and the trigger is back on.
    expect(await t.asOwner(sealUnchainedRows)).toBe(0);
    expect(
      await refusal(t.asOwner((owner) => owner.execute(sql`delete from audit_events where study_id = ${legacyStudy}`))),
    ).toMatch(/append-only/);
  });

  it('only system administrators may run the check', async () => {
    const role = await t.call(admin, 'POST', '/api/system/role', {
      roleName: '审计外角色',
      roleKey: 'no_audit',
      menuIds: [],
    });
    expect(role.status).toBe(200);
    const created = await t.call(admin, 'POST', '/api/system/user', {
      userName: '13900000077',
      name: '普通成员',
      password: 'Member@123',
      deptId: 1,
      roleIds: [role.body.data.roleId],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    await t.db.update(users).set({ setPasswordMust: false }).where(eq(users.userId, created.body.data.userId));
    const member = (await t.login('13900000077', 'Member@123')).token;
    expect((await t.call(member, 'GET', '/api/monitor/audit/verify')).status).toBe(403);
    expect((await t.app.inject({ url: '/api/monitor/audit/verify' })).statusCode).toBe(401);
  });
});

describe('canonical serialization', () => {
  it('ignores key order at every level and drops undefined members, as jsonb storage does', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { z: 1, y: null }], c: 'x' }, u: undefined })).toBe(
      '{"a":{"c":"x","d":[1,{"y":null,"z":1}]},"b":1}',
    );
    const base = {
      studyId: 1,
      subjectRecordId: null,
      crfDataRecordId: 2,
      crfId: 3,
      crfVersion: 1,
      action: 'item.update',
      itemName: 'x',
      reason: null,
      userId: 1,
      userName: 'a(b)',
    };
    const at = new Date('2026-01-02T03:04:05.678Z');
    expect(rowHash({ ...base, oldValue: { a: 1, b: [2] }, newValue: 1.5, createdAt: at }, null)).toBe(
      rowHash({ ...base, oldValue: { b: [2], a: 1 }, newValue: 1.5, createdAt: new Date(at.getTime()) }, null),
    );
    expect(rowHash({ ...base, oldValue: null, newValue: 1, createdAt: at }, null)).not.toBe(
      rowHash({ ...base, oldValue: null, newValue: '1', createdAt: at }, null),
    );
    expect(rowHash({ ...base, oldValue: null, newValue: 1, createdAt: at }, 'a'.repeat(64))).not.toBe(
      rowHash({ ...base, oldValue: null, newValue: 1, createdAt: at }, null),
    );
  });
});
