import crypto from 'node:crypto';
import { and, asc, eq, gt, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { deferToCommit, queryRows } from '../../db/client.js';
import { auditChainHeads, auditEvents } from '../../db/schema/index.js';
import { queryRowsNamed } from '../../db/reusable-query.js';
import { canonicalJson } from '../../shared/canonical-json.js';

export { canonicalJson };

/**
 * What a row's hash covers: everything it says, not its id (a serial number the database hands
 * out at insert) — the order is fixed by each row naming its predecessor's hash.
 */
export interface ChainedContent {
  studyId: number;
  subjectRecordId: number | null;
  crfDataRecordId: number | null;
  crfId: number | null;
  crfVersion: number | null;
  action: string;
  itemName: string | null;
  oldValue: unknown;
  newValue: unknown;
  reason: string | null;
  userId: number;
  userName: string;
  createdAt: Date;
  /**
   * A row about test data (测试数据, docs/lifecycle.md): written outside the chain (no hash) so the go-live purge
   * may delete it. Left out, it is told from the row's patient: a row about a test patient is a test row.
   */
  test?: boolean;
}

/** A value as the jsonb column will give it back (what JSON.stringify keeps, Dates as text). */
function stored(value: unknown): unknown {
  return value === undefined || value === null ? null : (JSON.parse(JSON.stringify(value)) as unknown);
}

/** Version 1 of the chained form; a change of fields or encoding gets a new `v`. */
export function rowHash(row: ChainedContent, prevHash: string | null): string {
  const text = canonicalJson({
    v: 1,
    studyId: row.studyId,
    subjectRecordId: row.subjectRecordId,
    crfDataRecordId: row.crfDataRecordId,
    crfId: row.crfId,
    crfVersion: row.crfVersion,
    action: row.action,
    itemName: row.itemName,
    oldValue: stored(row.oldValue),
    newValue: stored(row.newValue),
    reason: row.reason,
    userId: row.userId,
    userName: row.userName,
    // Millisecond ISO UTC: what both drivers read back from timestamptz.
    createdAt: row.createdAt.toISOString(),
    prevHash,
  });
  return crypto.createHash('sha256').update(text, 'utf8').digest('hex');
}

/**
 * Locks the study's chain head (creating it on the study's first row) and answers its hash. The
 * lock is held to the end of the transaction, so the study's appends chain one after another;
 * ON CONFLICT DO UPDATE returns the newest committed head even if it committed after our snapshot.
 */
async function lockHead(tx: Db, studyId: number): Promise<string | null> {
  const [head] = await tx
    .insert(auditChainHeads)
    .values({ studyId })
    .onConflictDoUpdate({ target: auditChainHeads.studyId, set: { studyId: sql`excluded.study_id` } })
    .returning({ hash: auditChainHeads.hash });
  return head?.hash ?? null;
}

const jsonParam = (value: unknown) => (value === undefined || value === null ? null : JSON.stringify(value));

const pending = new WeakMap<object, ChainedContent[]>();

/** Audit rows per insert statement (a normal save writes a handful; an import thousands). */
const CHAIN_CHUNK = 250;

/**
 * Appends rows to their studies' chains in the caller's transaction. Inside `db.transaction` the
 * rows are queued and written when the transaction's own work is done, all of them together: the
 * chain head is then the last lock the transaction takes, so a save that audits and then updates a
 * query cannot deadlock with a query reply that locked that query first. Per study that is one
 * statement to lock the head and one that inserts the rows and moves the head.
 */
export async function appendChained(tx: Db, rows: readonly ChainedContent[]): Promise<void> {
  // Values as they are now: the caller may go on changing its objects before the commit.
  const snapshot = rows.map((row) => ({ ...row, oldValue: stored(row.oldValue), newValue: stored(row.newValue) }));
  const queued = pending.get(tx);
  if (queued) {
    queued.push(...snapshot);
    return;
  }
  const queue = snapshot;
  if (deferToCommit(tx, () => writeChained(tx, queue.splice(0)))) {
    pending.set(tx, queue);
    return;
  }
  // Not a transaction of ours (a savepoint, or no transaction at all): lock and write in one now.
  await tx.transaction((inner) => writeChained(inner, queue));
}

async function writeChained(tx: Db, given: readonly ChainedContent[]): Promise<void> {
  const rows = await writeTestRows(tx, given);
  const byStudy = new Map<number, ChainedContent[]>();
  for (const row of rows) {
    const list = byStudy.get(row.studyId);
    if (list) list.push(row);
    else byStudy.set(row.studyId, [row]);
  }
  // One order for every transaction that touches several studies: no deadlock between them.
  for (const studyId of [...byStudy.keys()].sort((a, b) => a - b)) {
    await insertChained(tx, studyId, await lockHead(tx, studyId), byStudy.get(studyId)!);
  }
}

/**
 * The head lock as a part of the caller's own statement (the save's single write): a WITH entry named
 * `chain_head` whose `hash` is the head to pass to `appendChainedAfter`. The caller's statement must be its
 * transaction's last lock but the chain's, as `lockHead` is.
 */
export function chainHeadCte(studyId: number): SQL {
  return sql`chain_head as (insert into ${auditChainHeads} (study_id) values (${studyId})
    on conflict (study_id) do update set study_id = excluded.study_id returning hash)`;
}

/** Appends one study's rows after the head the caller locked with `chainHeadCte` in this transaction. */
export async function appendChainedAfter(
  tx: Db,
  studyId: number,
  head: string | null,
  rows: readonly ChainedContent[],
): Promise<void> {
  const snapshot = rows.map((row) => ({ ...row, oldValue: stored(row.oldValue), newValue: stored(row.newValue) }));
  const chained = await writeTestRows(tx, snapshot);
  if (chained.length > 0) await insertChained(tx, studyId, head, chained);
}

/** The casebooks (subject records) among the rows' whose patient is a test patient. */
async function testCasebooks(tx: Db, rows: readonly ChainedContent[]): Promise<Set<number>> {
  const ids = [
    ...new Set(rows.flatMap((r) => (r.test === undefined && r.subjectRecordId !== null ? [r.subjectRecordId] : []))),
  ];
  if (ids.length === 0) return new Set();
  const found = await queryRowsNamed<{ id: number }>(
    tx,
    'audit_test_casebooks',
    sql`select sr.id from subject_records sr join subjects s on s.id = sr.subject_id
      where sr.id = any(${sql.param(ids)}::int[]) and s.test`,
  );
  return new Set(found.map((r) => Number(r.id)));
}

/**
 * Writes the rows about test data (test = true, no hash: the trigger lets the go-live purge delete exactly these)
 * and answers the others, to be chained. A test row never touches the chain head, so test work takes no chain lock.
 */
async function writeTestRows(tx: Db, rows: readonly ChainedContent[]): Promise<ChainedContent[]> {
  const test = await testCasebooks(tx, rows);
  const isTest = (r: ChainedContent) => r.test ?? (r.subjectRecordId !== null && test.has(r.subjectRecordId));
  const testRows = rows.filter(isTest);
  for (let at = 0; at < testRows.length; at += CHAIN_CHUNK) {
    const { columns, p } = unnestColumns(testRows.slice(at, at + CHAIN_CHUNK), null);
    await queryRowsNamed(
      tx,
      'audit_append_test',
      sql`insert into audit_events (study_id, subject_record_id, crf_data_record_id, crf_id, crf_version, action, item_name,
        old_value, new_value, reason, user_id, user_name, created_at, test)
      select study_id, subject_record_id, crf_data_record_id, crf_id, crf_version, action, item_name,
        old_value, new_value, reason, user_id, user_name, created_at, true
      from unnest(${p(columns.study)}::int[], ${p(columns.subject)}::int[], ${p(columns.record)}::int[],
        ${p(columns.crf)}::int[], ${p(columns.version)}::int[], ${p(columns.action)}::varchar[], ${p(columns.item)}::varchar[],
        ${p(columns.old)}::jsonb[], ${p(columns.new)}::jsonb[], ${p(columns.reason)}::text[], ${p(columns.user)}::int[],
        ${p(columns.userName)}::varchar[], ${p(columns.at)}::timestamptz[])
        with ordinality as u(study_id, subject_record_id, crf_data_record_id, crf_id, crf_version, action, item_name,
          old_value, new_value, reason, user_id, user_name, created_at, n)
      order by n`,
    );
  }
  return testRows.length === 0 ? [...rows] : rows.filter((r) => !isTest(r));
}

/**
 * One array per column (unnest) rather than 15 parameters per row: the statement's size and its parsing no longer
 * grow with the rows, which matters for an import's thousands of rows. With `chain` the rows are hashed onto the
 * chain after its `prev` hash; without it they are test rows, without hashes.
 */
function unnestColumns(part: readonly ChainedContent[], chain: { prev: string | null } | null) {
  const columns = {
    study: [] as number[],
    subject: [] as Array<number | null>,
    record: [] as Array<number | null>,
    crf: [] as Array<number | null>,
    version: [] as Array<number | null>,
    action: [] as string[],
    item: [] as Array<string | null>,
    old: [] as Array<string | null>,
    new: [] as Array<string | null>,
    reason: [] as Array<string | null>,
    user: [] as number[],
    userName: [] as string[],
    at: [] as string[],
    prev: [] as Array<string | null>,
    hash: [] as string[],
  };
  let prev = chain?.prev ?? null;
  for (const row of part) {
    columns.study.push(row.studyId);
    columns.subject.push(row.subjectRecordId);
    columns.record.push(row.crfDataRecordId);
    columns.crf.push(row.crfId);
    columns.version.push(row.crfVersion);
    columns.action.push(row.action);
    columns.item.push(row.itemName);
    columns.old.push(jsonParam(stored(row.oldValue)));
    columns.new.push(jsonParam(stored(row.newValue)));
    columns.reason.push(row.reason);
    columns.user.push(row.userId);
    columns.userName.push(row.userName);
    columns.at.push(row.createdAt.toISOString());
    if (chain) {
      const hash = rowHash(row, prev);
      columns.prev.push(prev);
      columns.hash.push(hash);
      prev = hash;
    }
  }
  const p = (values: unknown[]) => sql.param(values);
  return { columns, p, last: prev };
}

async function insertChained(tx: Db, studyId: number, head: string | null, studyRows: readonly ChainedContent[]) {
  let prev = head;
  // A large batch (an import's) goes in pieces of CHAIN_CHUNK rows; between pieces other requests get the
  // event loop (hashing a piece takes a few milliseconds).
  for (let at = 0; at < studyRows.length; at += CHAIN_CHUNK) {
    if (at > 0) await new Promise<void>((resolve) => setImmediate(resolve));
    const part = studyRows.slice(at, at + CHAIN_CHUNK);
    const { columns, p, last } = unnestColumns(part, { prev });
    prev = last;
    // WITH ORDINALITY … ORDER BY: the ids follow the chain's order, as the verifier reads it.
    await queryRowsNamed(
      tx,
      'audit_append',
      sql`with appended as (
      insert into audit_events (study_id, subject_record_id, crf_data_record_id, crf_id, crf_version, action, item_name,
        old_value, new_value, reason, user_id, user_name, created_at, prev_hash, hash)
      select study_id, subject_record_id, crf_data_record_id, crf_id, crf_version, action, item_name,
        old_value, new_value, reason, user_id, user_name, created_at, prev_hash, hash
      from unnest(${p(columns.study)}::int[], ${p(columns.subject)}::int[], ${p(columns.record)}::int[],
        ${p(columns.crf)}::int[], ${p(columns.version)}::int[], ${p(columns.action)}::varchar[], ${p(columns.item)}::varchar[],
        ${p(columns.old)}::jsonb[], ${p(columns.new)}::jsonb[], ${p(columns.reason)}::text[], ${p(columns.user)}::int[],
        ${p(columns.userName)}::varchar[], ${p(columns.at)}::timestamptz[], ${p(columns.prev)}::varchar[], ${p(columns.hash)}::varchar[])
        with ordinality as u(study_id, subject_record_id, crf_data_record_id, crf_id, crf_version, action, item_name,
          old_value, new_value, reason, user_id, user_name, created_at, prev_hash, hash, n)
      order by n
      returning id)
    update audit_chain_heads set hash = ${prev}, last_id = (select max(id) from appended), row_count = row_count + ${part.length}
    where study_id = ${studyId}`,
    );
  }
}

export type ChainBreakKind = 'unchained' | 'link' | 'content' | 'head';

export interface ChainBreak {
  studyId: number;
  /** The first row that does not verify; null when only the head disagrees with the last row. */
  rowId: number | null;
  kind: ChainBreakKind;
  expected: string | null;
  found: string | null;
}

export interface StudyChain {
  studyId: number;
  rows: number;
  /** The newest hash: kept outside the database, it also shows a chain rewritten from scratch. */
  head: string | null;
  broken: ChainBreak | null;
}

export interface ChainReport {
  ok: boolean;
  rows: number;
  studies: StudyChain[];
  firstBreak: ChainBreak | null;
}

const PAGE = 2000;

/**
 * Audit rows as chained: the jsonb values are read as text and parsed once here, because the ORM
 * parses a jsonb string a second time when it looks like JSON (the string "72" would come back
 * as the number 72 and no longer match its hash).
 */
export async function chainRows(db: Db, where: SQL | undefined, limit?: number) {
  const query = db
    .select({
      id: auditEvents.id,
      studyId: auditEvents.studyId,
      subjectRecordId: auditEvents.subjectRecordId,
      crfDataRecordId: auditEvents.crfDataRecordId,
      crfId: auditEvents.crfId,
      crfVersion: auditEvents.crfVersion,
      action: auditEvents.action,
      itemName: auditEvents.itemName,
      oldText: sql<string | null>`${auditEvents.oldValue}::text`,
      newText: sql<string | null>`${auditEvents.newValue}::text`,
      reason: auditEvents.reason,
      userId: auditEvents.userId,
      userName: auditEvents.userName,
      createdAt: auditEvents.createdAt,
      prevHash: auditEvents.prevHash,
      hash: auditEvents.hash,
      test: auditEvents.test,
    })
    .from(auditEvents)
    .where(where)
    .orderBy(asc(auditEvents.id));
  const rows = await (limit === undefined ? query : query.limit(limit));
  return rows.map(({ oldText, newText, ...row }) => ({
    ...row,
    oldValue: oldText === null ? null : (JSON.parse(oldText) as unknown),
    newValue: newText === null ? null : (JSON.parse(newText) as unknown),
  }));
}

/** The study's chained rows: rows about test data are outside the chain (written without a hash, purged at 上线). */
const onChain = (studyId: number) => and(eq(auditEvents.studyId, studyId), eq(auditEvents.test, false));

async function verifyStudy(db: Db, studyId: number): Promise<StudyChain> {
  let prev: string | null = null;
  let rows = 0;
  let lastId = 0;
  for (;;) {
    const page = await chainRows(db, and(onChain(studyId), gt(auditEvents.id, lastId)), PAGE);
    for (const row of page) {
      const broken = (kind: ChainBreakKind, expected: string | null, found: string | null): StudyChain => ({
        studyId,
        rows,
        head: prev,
        broken: { studyId, rowId: row.id, kind, expected, found },
      });
      if (row.hash === null) return broken('unchained', rowHash(row, prev), null);
      // A row deleted, inserted or reordered before this one.
      if (row.prevHash !== prev) return broken('link', prev, row.prevHash);
      const expected = rowHash(row, prev);
      if (expected !== row.hash) return broken('content', expected, row.hash);
      prev = row.hash;
      rows += 1;
    }
    if (page.length < PAGE) break;
    lastId = page[page.length - 1]!.id;
  }
  const [head] = await db
    .select({ hash: auditChainHeads.hash })
    .from(auditChainHeads)
    .where(eq(auditChainHeads.studyId, studyId));
  // Rows cut off the end leave the head pointing past the last row.
  if ((head?.hash ?? null) !== prev) {
    return {
      studyId,
      rows,
      head: prev,
      broken: { studyId, rowId: null, kind: 'head', expected: prev, found: head?.hash ?? null },
    };
  }
  return { studyId, rows, head: prev, broken: null };
}

/** Walks every study's chain from its first row; each study stops at its first broken link. */
export async function verifyAuditChains(db: Db): Promise<ChainReport> {
  const ids = await queryRows<{ study_id: number }>(
    db,
    sql`select study_id from audit_chain_heads union select distinct study_id from audit_events order by study_id`,
  );
  const studies: StudyChain[] = [];
  for (const { study_id } of ids) studies.push(await verifyStudy(db, Number(study_id)));
  const firstBreak = studies.find((s) => s.broken)?.broken ?? null;
  return { ok: firstBreak === null, rows: studies.reduce((n, s) => n + s.rows, 0), studies, firstBreak };
}

const KIND_TEXT: Record<ChainBreakKind, string> = {
  unchained: 'row carries no hash',
  link: 'previous-hash link does not match the row before it',
  content: 'content does not match its hash',
  head: 'chain head does not match the last row',
};

/** The report as the command prints it. */
export function chainReportText(report: ChainReport): string {
  const lines = report.studies.map(
    (s) => `study ${s.studyId}: ${s.rows} rows verified, head ${s.head ?? '-'}${s.broken ? ' BROKEN' : ''}`,
  );
  const b = report.firstBreak;
  lines.push(
    b
      ? `BROKEN study ${b.studyId}, row ${b.rowId ?? '(after the last row)'}: ${KIND_TEXT[b.kind]}; expected ${b.expected ?? 'null'}, found ${b.found ?? 'null'}`
      : `OK ${report.rows} rows`,
  );
  return lines.join('\n');
}

/**
 * Chains the rows written before the chain existed (migration 0009), study by study in id order,
 * as the owner at start-up: the append-only trigger is lifted inside this one transaction only.
 * A study whose chain has already begun is left alone: rows without a hash there were written
 * around the chain (an old server during an upgrade, a console) and the check reports them.
 */
export async function sealUnchainedRows(owner: Db): Promise<number> {
  const pending = await queryRows<{ study_id: number }>(
    owner,
    sql`select distinct study_id from audit_events where hash is null and not test order by study_id`,
  );
  if (pending.length === 0) return 0;
  return owner.transaction(async (tx) => {
    let sealed = 0;
    await tx.execute(sql`alter table audit_events disable trigger audit_events_no_update_delete`);
    for (const { study_id } of pending) {
      const studyId = Number(study_id);
      if ((await lockHead(tx, studyId)) !== null) continue;
      const rows = await chainRows(tx, onChain(studyId));
      if (rows.some((r) => r.hash !== null)) continue;
      let prev: string | null = null;
      const links = rows.map((row) => {
        const hash = rowHash(row, prev);
        const link = sql`(${row.id}::bigint, ${prev}::varchar, ${hash}::varchar)`;
        prev = hash;
        return link;
      });
      for (let i = 0; i < links.length; i += 1000) {
        await tx.execute(sql`update audit_events a set prev_hash = v.prev, hash = v.hash
          from (values ${sql.join(links.slice(i, i + 1000), sql`, `)}) as v(id, prev, hash) where a.id = v.id`);
      }
      await tx
        .update(auditChainHeads)
        .set({ hash: prev, lastId: rows[rows.length - 1]!.id, rowCount: rows.length })
        .where(eq(auditChainHeads.studyId, studyId));
      sealed += rows.length;
    }
    await tx.execute(sql`alter table audit_events enable trigger audit_events_no_update_delete`);
    return sealed;
  });
}
