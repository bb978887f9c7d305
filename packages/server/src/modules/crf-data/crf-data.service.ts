import { and, asc, desc, eq, inArray, isNull, sql, type SQL } from 'drizzle-orm';
import {
  blockingErrors,
  changedItemNames,
  crfKey,
  evaluateForm,
  FORM_STATE,
  formStateOf,
  genderFromPatient,
  initialValues,
  isEmptyValue,
  isMissingRequired,
  MSG,
  reasonRequired,
  recordSummary,
  STUDY_BUTTONS,
  type CrfAction,
  identifierItemsOf,
  type CrfDefinition,
  type FormIssue,
  type IdentifierItems,
} from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import type { Db } from '../../db/client.js';
import { queryRowsNamed, reusableSelect } from '../../db/reusable-query.js';
import {
  appliedRequests,
  crfDataRecords,
  crfStageCrfs,
  crfStages,
  crfs,
  signatures,
  subjectRecords,
  subjects,
  users,
  type SdvMark,
} from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';
import type { CurrentUser } from '../../shared/current-user.js';
import { hasStudyPermission, type StudyAccess } from '../../shared/study-access.js';
import { activeDoubtsOf } from '../doubt/doubt.service.js';
import { SYSTEM_QUERIES } from '../doubt/system-queries.subscriber.js';
import type { RecordedEvent } from '../../shared/domain-events.js';
import { actorOf, audit, chainedContent, type AuditEntry } from '../audit/audit.service.js';
import { appendChainedAfter, chainHeadCte } from '../audit/audit-chain.js';
import { fileKeysOf, fileNamesOf } from '../audit/audit-text.service.js';
import { linkFollowForm } from '../follow/follow-forms.js';
import { assertWritable } from '../locks/lock-gate.js';
import { definitionOf, nodesOf } from './crf-definitions.js';
import { otherFormValues, prefillFromPatient } from './linked-values.service.js';
import { getSubjectByRecord, invalidateSignatures, listSignatures } from '../subjects/subject.service.js';
import { checkSameRequest, saveRequestHash } from './save-request.js';
import { conflictFor, formIdentifiers, identifiersForSave, valuesFor } from './identifier-values.js';
import { seesIdentifiers } from '../subjects/subject.service.js';

export interface SaveInput {
  subjectRecordId: number;
  crfId: number;
  crfDataRecordId?: number | null;
  version?: number | null;
  values: Record<string, unknown>;
  submit?: boolean;
  reason?: string | null;
  requestId?: string | null;
  followRecordCrfId?: number | null;
}

export { FORM_STATE };
const FORM_SDV_KEY = '__form__';

export const can = (access: StudyAccess, crfId: number, action: CrfAction) =>
  hasStudyPermission(access, crfKey(crfId, action));

export function requireCrf(access: StudyAccess, crfId: number, action: CrfAction) {
  if (!can(access, crfId, action)) throw AppError.forbidden();
}

async function liveRecord(db: Db, subjectRecordId: number) {
  const [record] = await db
    .select()
    .from(subjectRecords)
    .where(and(eq(subjectRecords.id, subjectRecordId), isNull(subjectRecords.deletedAt)));
  if (!record) throw AppError.notFound('subject.not_found', '患者不存在');
  return record;
}

async function crfOfStudy(db: Db, studyId: number, crfId: number) {
  const [crf] = await db
    .select()
    .from(crfs)
    .where(and(eq(crfs.id, crfId), eq(crfs.studyId, studyId)));
  if (!crf) throw AppError.notFound('crf.not_found', 'CRF不存在');
  return crf;
}

/** Original names of the stored files that records of one form refer to, by file key (one statement, none without files). */
async function filesOf(
  db: Db,
  studyId: number,
  definition: CrfDefinition,
  records: ReadonlyArray<Record<string, unknown>>,
): Promise<Record<string, string>> {
  const nodes = nodesOf(definition);
  const keys = records.flatMap((values) =>
    Object.entries(values).flatMap(([name, value]) => fileKeysOf(nodes.get(name), value)),
  );
  return Object.fromEntries(await fileNamesOf(db, studyId, keys));
}

/** Whether a form is single (repeat 1) in the study's stages; a form in no stage counts as single. */
export async function isRepeatable(db: Db, crfId: number) {
  const links = await db
    .select({ repeat: crfStageCrfs.repeat })
    .from(crfStageCrfs)
    .where(eq(crfStageCrfs.crfId, crfId));
  return links.some((l) => l.repeat !== 1);
}

interface MenuNode {
  id: string;
  title: string;
  type: 0 | 1 | 2;
  crfId?: number;
  repeat?: number;
  state?: number;
  count?: number;
  childrens: MenuNode[];
  btns: Array<{ code: string; title: string }>;
}

/** The CRF sidebar: stages with the forms the caller may view, each with its state for this subject. */
export async function crfMenu(ctx: AppContext, access: StudyAccess, subjectRecordId: number): Promise<MenuNode[]> {
  const record = await liveRecord(ctx.db, subjectRecordId);
  const stages = await ctx.db
    .select()
    .from(crfStages)
    .where(eq(crfStages.studyId, record.studyId))
    .orderBy(asc(crfStages.orderNum), asc(crfStages.id));
  const links = await ctx.db
    .select({
      stageId: crfStageCrfs.stageId,
      crfId: crfStageCrfs.crfId,
      repeat: crfStageCrfs.repeat,
      orderNum: crfStageCrfs.orderNum,
      title: crfs.title,
    })
    .from(crfStageCrfs)
    .innerJoin(crfs, eq(crfs.id, crfStageCrfs.crfId))
    .where(eq(crfStageCrfs.studyId, record.studyId))
    .orderBy(asc(crfStageCrfs.orderNum), asc(crfStageCrfs.crfId));
  const doubtRecordIds = new Set((await activeDoubtsOf(ctx.db, subjectRecordId)).map((d) => d.crfDataRecordId));
  const data = await ctx.db
    .select({ id: crfDataRecords.id, crfId: crfDataRecords.crfId, state: crfDataRecords.state })
    .from(crfDataRecords)
    .where(and(eq(crfDataRecords.subjectRecordId, subjectRecordId), isNull(crfDataRecords.deletedAt)));
  const btns = STUDY_BUTTONS.filter(([code]) => hasStudyPermission(access, `btn:${code}`)).map(([code, title]) => ({
    code,
    title,
  }));
  const build = (parentId: number): MenuNode[] =>
    stages
      .filter((s) => s.parentId === parentId)
      .map((s) => ({
        id: `stage-${s.id}`,
        title: s.name,
        type: 0 as const,
        btns: [],
        childrens: [
          ...build(s.id),
          ...links
            .filter((l) => l.stageId === s.id && can(access, l.crfId, 'view'))
            .map((l) => {
              const mine = data.filter((d) => d.crfId === l.crfId);
              return {
                id: `crf-${s.id}-${l.crfId}`,
                title: l.title,
                type: 1 as const,
                crfId: l.crfId,
                repeat: l.repeat,
                state: formStateOf(mine, doubtRecordIds),
                count: mine.length,
                childrens: [],
                btns,
              };
            }),
        ],
      }));
  return build(0);
}

function permissionsFor(access: StudyAccess, crfId: number) {
  return {
    view: can(access, crfId, 'view'),
    save: can(access, crfId, 'save'),
    submit: can(access, crfId, 'submit'),
    sdv: can(access, crfId, 'sdv'),
    sign: hasStudyPermission(access, 'btn:business.crf.sign'),
    doubt: can(access, crfId, 'doubt'),
  };
}

function presentRecord(r: typeof crfDataRecords.$inferSelect) {
  return {
    id: r.id,
    crfDataRecordId: r.id,
    version: r.version,
    crfVersion: r.crfVersion,
    state: r.state,
    values: r.values,
    sdv: r.sdv,
    createTime: r.createdAt,
    updateTime: r.updatedAt,
  };
}

/** One form of one subject: definition (the version its data was entered with), values and what the caller may do. */
export async function crfDetail(
  ctx: AppContext,
  access: StudyAccess,
  subjectRecordId: number,
  crfId: number,
  crfDataRecordId?: number,
) {
  requireCrf(access, crfId, 'view');
  const record = await liveRecord(ctx.db, subjectRecordId);
  const crf = await crfOfStudy(ctx.db, record.studyId, crfId);
  const rows = await ctx.db
    .select()
    .from(crfDataRecords)
    .where(
      and(
        eq(crfDataRecords.subjectRecordId, subjectRecordId),
        eq(crfDataRecords.crfId, crfId),
        isNull(crfDataRecords.deletedAt),
      ),
    )
    .orderBy(asc(crfDataRecords.id));
  const repeatable = await isRepeatable(ctx.db, crfId);
  const current = crfDataRecordId ? rows.find((r) => r.id === crfDataRecordId) : repeatable ? undefined : rows[0];
  if (crfDataRecordId && !current) throw AppError.notFound('crf_data.not_found', '表单记录不存在');
  const version = current?.crfVersion ?? crf.currentVersion;
  const definition = await definitionOf(ctx.db, crfId, version);
  // Identifier items read masked without 查看患者身份信息 (the files they name too).
  const ids = await formIdentifiers(ctx.db, crfId, [version], crf.currentVersion);
  const shown = current ? { ...current, values: valuesFor(access, ids, current.values) } : undefined;
  const subject = await getSubjectByRecord(ctx, subjectRecordId, access);
  const [creater] = await ctx.db
    .select({ name: users.name })
    .from(users)
    .where(eq(users.userId, record.createdBy ?? 0));
  const signature = (await listSignatures(ctx, subjectRecordId))[0] ?? null;
  const active = (await activeDoubtsOf(ctx.db, subjectRecordId)).filter((d) => d.crfId === crfId);
  const files = await filesOf(ctx.db, record.studyId, definition, shown ? [shown.values] : []);
  return {
    crf: { id: crf.id, title: crf.title, version, option: definition.option ?? {}, definition },
    subject,
    subjectRecord: { id: record.id, creater: creater?.name ?? '', state: record.state },
    subjectState: { crfId, subjectRecordId, state: formStateOf(rows, new Set(active.map((d) => d.crfDataRecordId))) },
    crfDataRecord: shown ? presentRecord(shown) : null,
    /** The original names of the files the record's values refer to, by file key. */
    files,
    crfDataRecords: rows.map((r) => ({ crfDataRecordId: r.id, state: r.state })),
    crfDoubts: active
      .filter((d) => d.crfDataRecordId === current?.id)
      .map((d) => ({
        itemName: d.itemName,
        groupName: d.groupName,
        groupIndex: d.groupIndex,
        doubtId: d.doubtId,
        optionType: d.optionType,
        doubtType: d.doubtType,
      })),
    initialValues: current
      ? null
      : {
          ...initialValues(definition, {
            now: ctx.clock(),
            timeZone: access.timeZone,
            gender: genderFromPatient(subject.gender),
          }),
          ...prefillFromPatient(definition, subject),
        },
    // What this form's form("标题", "item") calls read, from forms the caller may view.
    formValues: await otherFormValues(
      ctx.db,
      record.studyId,
      subjectRecordId,
      definition,
      (id) => can(access, id, 'view'),
      seesIdentifiers(access),
    ),
    repeat: repeatable ? 0 : 1,
    /** The study's zone: the page's "today", "now" and shown times. */
    timeZone: access.timeZone,
    permissions: permissionsFor(access, crfId),
    signature: signature ? { valid: signature.valid, signedAt: signature.signedAt, signer: signature.signer } : null,
  };
}

export async function dataList(ctx: AppContext, access: StudyAccess, subjectRecordId: number, crfId: number) {
  requireCrf(access, crfId, 'view');
  await liveRecord(ctx.db, subjectRecordId);
  const rows = await ctx.db
    .select({ record: crfDataRecords, creater: users.name })
    .from(crfDataRecords)
    .leftJoin(users, eq(users.userId, crfDataRecords.createdBy))
    .where(
      and(
        eq(crfDataRecords.subjectRecordId, subjectRecordId),
        eq(crfDataRecords.crfId, crfId),
        isNull(crfDataRecords.deletedAt),
      ),
    )
    .orderBy(asc(crfDataRecords.id));
  const definitions = new Map<number, CrfDefinition>();
  for (const version of new Set(rows.map(({ record }) => record.crfVersion))) {
    definitions.set(version, await definitionOf(ctx.db, crfId, version));
  }
  const ids = await formIdentifiers(ctx.db, crfId, definitions.keys());
  return rows.map(({ record, creater }) => ({
    crfDataRecordId: record.id,
    state: record.state,
    version: record.version,
    createTime: record.createdAt,
    updateTime: record.updatedAt,
    creater: creater ?? '',
    summary: recordSummary(definitions.get(record.crfVersion)!, valuesFor(access, ids, record.values)),
  }));
}

const issueOut = (i: FormIssue) => ({
  itemName: i.item,
  groupName: i.container ?? null,
  groupIndex: i.row ?? null,
  message: i.message,
});

/** Another save with the same request id committed first: its answer is the answer. */
class RequestAlreadyApplied extends Error {}

async function appliedAnswer(db: Db, userId: number, input: SaveInput) {
  if (!input.requestId) return null;
  const [row] = await db
    .select()
    .from(appliedRequests)
    .where(and(eq(appliedRequests.userId, userId), eq(appliedRequests.requestId, input.requestId)));
  if (!row) return null;
  if (row.subjectRecordId !== input.subjectRecordId || row.crfId !== input.crfId) {
    throw AppError.badRequest('crf.request_reused', 'requestId 已用于其他表单');
  }
  checkSameRequest(row.requestHash, input);
  return {
    crfDataRecordId: row.crfDataRecordId,
    version: row.version,
    state: row.state,
    errors: [],
    warnings: [],
    repeated: true,
  };
}

/**
 * Save and submit (forms §4, CRF-27): the engine re-evaluates the whole form on the server and its
 * verdict is final. Save keeps a partial form; submit needs every visible required item and no error.
 * The record's version guards against lost updates; every changed item is audited in the same
 * transaction; verification marks of changed items and signatures over the casebook are voided.
 *
 * "Only one" rules are constraints, not reads: a single form's second live record is refused by a
 * unique index, and a request id is applied once by a primary key. A concurrent writer that loses
 * either race gets the winner's answer (same request id) or the 409 conflict with the winner's values.
 */
export async function saveCrf(
  ctx: AppContext,
  user: CurrentUser,
  access: StudyAccess,
  input: SaveInput,
  /** A WITH entry to write with the save (the request's operation-log row): it commits with the save or not at all. */
  alsoWrite?: SQL,
) {
  requireCrf(access, input.crfId, input.submit ? 'submit' : 'save');
  // A request id already applied is found by the transaction itself (its version no longer matches, or its
  // claim conflicts), never by a read before it: a retry costs its refusal, a first try costs nothing.
  try {
    return await applySave(ctx, user, input, access, alsoWrite);
  } catch (err) {
    if (input.requestId && (err instanceof RequestAlreadyApplied || (err instanceof AppError && err.status === 409))) {
      const winner = await appliedAnswer(ctx.db, user.userId, input);
      if (winner) return winner;
    }
    throw err;
  }
}

/**
 * How long a save's answer waits for its system queries (raised after commit by their subscriber),
 * so that the page, which refetches the form and its menu on the answer, shows them. Past this the
 * answer goes without them: the save is safe, the queries follow, the next refetch shows them.
 */
const SYSTEM_QUERY_WAIT_MS = 3_000;

async function applySave(ctx: AppContext, user: CurrentUser, input: SaveInput, access: StudyAccess, alsoWrite?: SQL) {
  let published: RecordedEvent | undefined;
  const result = await writeSave(ctx, user, input, access, alsoWrite, (recorded) => {
    published = recorded;
  });
  // Only a submitted form has system queries to raise or close: a draft's save (most saves) answers at once.
  if (published && result.state === FORM_STATE.submitted) {
    await ctx.events.delivered(published, SYSTEM_QUERIES, SYSTEM_QUERY_WAIT_MS);
  }
  return result;
}

/**
 * What a save judges, read in one statement: the live casebook, its patient's sex, the form in the casebook's
 * study and, for a form saved before, its record, locked until the save commits. When that finds nothing, the
 * reads one by one say what is missing, in the order the refusals have always come.
 */
/** The casebook, its patient's sex and the form, for a form's first save. */
const readForFirstSave = reusableSelect('crf_save_read_first', (db) =>
  db
    .select({
      record: { id: subjectRecords.id, studyId: subjectRecords.studyId, subjectId: subjectRecords.subjectId },
      gender: subjects.gender,
      crf: { title: crfs.title, currentVersion: crfs.currentVersion },
    })
    .from(subjectRecords)
    .innerJoin(subjects, eq(subjects.id, subjectRecords.subjectId))
    .innerJoin(crfs, and(eq(crfs.id, sql.placeholder('crfId')), eq(crfs.studyId, subjectRecords.studyId)))
    .where(and(eq(subjectRecords.id, sql.placeholder('subjectRecordId')), isNull(subjectRecords.deletedAt))),
);

/** The same and the form's record, locked until the save commits. */
const readForLaterSave = reusableSelect('crf_save_read', (db) =>
  db
    .select({
      record: { id: subjectRecords.id, studyId: subjectRecords.studyId, subjectId: subjectRecords.subjectId },
      gender: subjects.gender,
      crf: { title: crfs.title, currentVersion: crfs.currentVersion },
      existing: crfDataRecords,
    })
    .from(subjectRecords)
    .innerJoin(subjects, eq(subjects.id, subjectRecords.subjectId))
    .innerJoin(crfs, and(eq(crfs.id, sql.placeholder('crfId')), eq(crfs.studyId, subjectRecords.studyId)))
    .innerJoin(
      crfDataRecords,
      and(
        eq(crfDataRecords.id, sql.placeholder('crfDataRecordId')),
        eq(crfDataRecords.subjectRecordId, subjectRecords.id),
        eq(crfDataRecords.crfId, sql.placeholder('crfId')),
        isNull(crfDataRecords.deletedAt),
      ),
    )
    .where(and(eq(subjectRecords.id, sql.placeholder('subjectRecordId')), isNull(subjectRecords.deletedAt)))
    .for('update', { of: crfDataRecords }),
);

async function readForSave(tx: Db, input: SaveInput) {
  const found = input.crfDataRecordId
    ? await readForLaterSave(tx, {
        subjectRecordId: input.subjectRecordId,
        crfId: input.crfId,
        crfDataRecordId: input.crfDataRecordId,
      })
    : await readForFirstSave(tx, { subjectRecordId: input.subjectRecordId, crfId: input.crfId });
  const [row] = found as Array<{
    record: { id: number; studyId: number; subjectId: number };
    gender: number | null;
    crf: { title: string; currentVersion: number };
    existing?: typeof crfDataRecords.$inferSelect;
  }>;
  if (!row) {
    const record = await liveRecord(tx, input.subjectRecordId);
    await crfOfStudy(tx, record.studyId, input.crfId);
    throw AppError.notFound('crf_data.not_found', '表单记录不存在');
  }
  return row;
}

async function writeSave(
  ctx: AppContext,
  user: CurrentUser,
  input: SaveInput,
  access: StudyAccess,
  alsoWrite: SQL | undefined,
  published: (recorded: RecordedEvent) => void,
) {
  const now = ctx.clock();
  return ctx.db.transaction(async (tx) => {
    const { record, gender, crf, existing } = await readForSave(tx, input);
    await assertWritable(tx, { studyId: record.studyId, subjectRecordId: record.id, crfDataRecordId: existing?.id });
    if (existing && input.version !== existing.version) {
      throw await conflictFor(tx, access, stale(existing, input.values), existing);
    }

    const crfVersion = existing?.crfVersion ?? crf.currentVersion;
    const definition = await definitionOf(tx, input.crfId, crfVersion);
    const forms = await otherFormValues(tx, record.studyId, record.id, definition);
    const judged = judgeSave(definition, input.values, existing, {
      submit: Boolean(input.submit),
      reason: input.reason,
      now,
      timeZone: access.timeZone,
      gender,
      forms,
      identifiers: {
        items: await formIdentifiers(tx, input.crfId, [crfVersion], crf.currentVersion),
        mayChange: seesIdentifiers(access),
      },
    });
    const write = { ctx, tx, user, input, access, now, record, crf, crfVersion, judged, alsoWrite };
    const { id, version } = existing
      ? await updateRecord(write, existing, published)
      : await insertRecord(write, published);
    return {
      crfDataRecordId: id,
      version,
      state: judged.state,
      errors: [],
      warnings: judged.warnings.map(issueOut),
      changedItems: judged.changed,
    };
  });
}

interface SaveWrite {
  ctx: AppContext;
  tx: Db;
  user: CurrentUser;
  input: SaveInput;
  access: StudyAccess;
  now: Date;
  record: { id: number; studyId: number; subjectId: number };
  crf: { title: string };
  crfVersion: number;
  judged: SaveJudgement;
  alsoWrite: SQL | undefined;
}

const signatureVoidReason = (crfTitle: string) => `表单“${crfTitle}”的数据在签名后被修改`;

const savedEvent = (w: SaveWrite, recordId: number) =>
  ({
    type: w.input.submit && !w.judged.wasSubmitted ? 'record.submitted' : 'record.saved',
    studyId: w.record.studyId,
    subjectId: w.record.subjectId,
    crfId: w.input.crfId,
    recordId,
    by: w.user.userId,
  }) as const;

/**
 * A form saved before, written in one statement: the record at its new version, the voided signatures (when
 * values changed), the request's claim, the domain event and its deliveries, and the audit chain's head lock,
 * taken last as everywhere (audit-chain.ts); then the audit rows after that head. With the read before it, a
 * save is four statements inside its transaction (BEGIN and COMMIT included).
 */
async function updateRecord(
  w: SaveWrite,
  existing: typeof crfDataRecords.$inferSelect,
  published: (r: RecordedEvent) => void,
) {
  const { tx, user, input, now, record, judged } = w;
  const id = existing.id;
  const version = existing.version + 1;
  const submitsNow = Boolean(input.submit) && !judged.wasSubmitted;
  if (input.followRecordCrfId) {
    await linkFollowForm(tx, {
      studyId: record.studyId,
      subjectRecordId: record.id,
      crfId: input.crfId,
      followRecordCrfId: input.followRecordCrfId,
      crfDataRecordId: id,
    });
  }
  const base = {
    studyId: record.studyId,
    subjectRecordId: record.id,
    crfDataRecordId: id,
    crfId: input.crfId,
    crfVersion: w.crfVersion,
  };
  const entries = saveAuditEntries(
    base,
    existing,
    {
      before: existing.values,
      after: judged.after,
      changed: judged.changed,
      cleared: judged.cleared,
      reason: judged.reason,
    },
    submitsNow,
  );
  const why = signatureVoidReason(w.crf.title);
  const event = w.ctx.events.recordIn(savedEvent(w, id));
  const parts: SQL[] = [
    sql`updated as (update ${crfDataRecords} set values = ${JSON.stringify(judged.after)}::jsonb, state = ${judged.state},
      version = ${version}, sdv = ${JSON.stringify(judged.sdv)}::jsonb, updated_by = ${user.userId},
      updated_at = ${now.toISOString()}::timestamptz
      ${submitsNow ? sql`, submitted_at = ${now.toISOString()}::timestamptz` : sql``}
      where id = ${id} returning id)`,
  ];
  if (judged.changed.length > 0) {
    parts.push(sql`voided as (update ${signatures} set invalidated_at = ${now.toISOString()}::timestamptz,
      invalidated_reason = ${why} where subject_record_id = ${record.id} and invalidated_at is null returning id)`);
  }
  if (input.requestId) {
    parts.push(sql`claimed as (insert into ${appliedRequests} (user_id, request_id, study_id, subject_record_id, crf_id,
      crf_data_record_id, version, state, request_hash, created_at)
      values (${user.userId}, ${input.requestId}, ${record.studyId}, ${record.id}, ${input.crfId}, ${id}, ${version},
        ${judged.state}, ${saveRequestHash(input)}, ${now.toISOString()}::timestamptz)
      on conflict do nothing returning request_id)`);
  }
  parts.push(event.ctes);
  if (w.alsoWrite) parts.push(w.alsoWrite);
  // Signatures voided add a row of their own: the head is needed whenever anything is audited.
  const audits = entries.length > 0 || judged.changed.length > 0;
  if (audits) parts.push(chainHeadCte(record.studyId));
  const [out] = await queryRowsNamed<{
    event_id: number | string;
    voided: number[] | null;
    claimed: number | string;
    head: string | null;
  }>(
    tx,
    'crf_save_write',
    sql`with ${sql.join(parts, sql`, `)} select ${event.eventId} as event_id,
      ${judged.changed.length > 0 ? sql`(select array_agg(id order by id) from voided)` : sql`null::int[]`} as voided,
      ${input.requestId ? sql`(select count(*) from claimed)` : sql`1`} as claimed,
      ${audits ? sql`(select hash from chain_head)` : sql`null::varchar`} as head`,
  );
  if (Number(out!.claimed) === 0) throw new RequestAlreadyApplied();
  const voided = out!.voided ?? [];
  if (voided.length > 0) {
    entries.push({
      studyId: record.studyId,
      subjectRecordId: record.id,
      action: 'subject.sign_invalidated',
      reason: why,
      oldValue: voided,
    });
  }
  if (entries.length > 0) {
    await appendChainedAfter(tx, record.studyId, out!.head, chainedContent(actorOf(user), now, entries));
  }
  published(event.recorded(tx, out!.event_id));
  return { id, version };
}

/** A form's first save: the record is created (a single form's second live record is refused by its unique index). */
async function insertRecord(w: SaveWrite, published: (r: RecordedEvent) => void) {
  const { tx, user, input, now, record, judged } = w;
  const version = 1;
  const singleForm = !(await isRepeatable(tx, input.crfId));
  const [row] = await tx
    .insert(crfDataRecords)
    .values({
      studyId: record.studyId,
      subjectRecordId: record.id,
      crfId: input.crfId,
      crfVersion: w.crfVersion,
      state: judged.state,
      version,
      values: judged.after,
      singleForm,
      createdBy: user.userId,
      updatedBy: user.userId,
      createdAt: now,
      updatedAt: now,
      submittedAt: input.submit ? now : null,
    })
    .onConflictDoNothing()
    .returning({ id: crfDataRecords.id });
  if (!row) {
    // Another first save of this single form committed while this one ran: theirs stands.
    const [winner] = await tx
      .select()
      .from(crfDataRecords)
      .where(
        and(
          eq(crfDataRecords.subjectRecordId, record.id),
          eq(crfDataRecords.crfId, input.crfId),
          eq(crfDataRecords.singleForm, true),
          isNull(crfDataRecords.deletedAt),
        ),
      );
    throw await conflictFor(tx, w.access, stale(winner!, input.values), winner!);
  }
  const id = row.id;
  if (input.requestId) {
    const [claimed] = await tx
      .insert(appliedRequests)
      .values({
        userId: user.userId,
        requestId: input.requestId,
        studyId: record.studyId,
        subjectRecordId: record.id,
        crfId: input.crfId,
        crfDataRecordId: id,
        version,
        state: judged.state,
        requestHash: saveRequestHash(input),
        createdAt: now,
      })
      .onConflictDoNothing()
      .returning({ requestId: appliedRequests.requestId });
    if (!claimed) throw new RequestAlreadyApplied();
  }
  const base = {
    studyId: record.studyId,
    subjectRecordId: record.id,
    crfDataRecordId: id,
    crfId: input.crfId,
    crfVersion: w.crfVersion,
  };
  await audit(
    tx,
    user,
    now,
    saveAuditEntries(
      base,
      undefined,
      { before: {}, after: judged.after, changed: judged.changed, cleared: judged.cleared, reason: judged.reason },
      Boolean(input.submit),
    ),
  );
  if (judged.changed.length > 0) {
    await invalidateSignatures(tx, user, now, record.studyId, record.id, signatureVoidReason(w.crf.title));
  }
  if (input.followRecordCrfId) {
    await linkFollowForm(tx, {
      studyId: record.studyId,
      subjectRecordId: record.id,
      crfId: input.crfId,
      followRecordCrfId: input.followRecordCrfId,
      crfDataRecordId: id,
    });
  }
  if (w.alsoWrite) await tx.execute(sql`with ${w.alsoWrite} select 1`);
  // Reactions (system queries, realtime pushes, follow-up) run after commit, as subscribers of this event.
  published(await w.ctx.events.record(tx, savedEvent(w, id)));
  return { id, version };
}

/** What a save judges before it writes: the engine's verdict on the values and what follows from it. */
export interface SaveJudgement {
  after: Record<string, unknown>;
  changed: string[];
  state: number;
  sdv: Record<string, SdvMark>;
  /** Verification marks the change voids (items, and the form's own mark when anything changed). */
  cleared: string[];
  wasSubmitted: boolean;
  reason: string | null;
  warnings: FormIssue[];
}

/**
 * The save's rules on one record, pure: the engine evaluates the values (now, the study's zone, the patient's
 * sex, the other forms' values), a form that is or will be submitted is held to the submit rules, a change to
 * submitted data needs a reason, and changed items lose their verification marks. Throws the save's own
 * refusals (crf.invalid, crf.reason_required). The form page's save and the import's set-based writer both
 * judge through here, so an imported record is held to exactly the page's rules.
 */
export function judgeSave(
  definition: CrfDefinition,
  values: Record<string, unknown>,
  existing: { state: number; values: Record<string, unknown>; sdv: Record<string, SdvMark> | null } | undefined,
  opts: {
    submit: boolean;
    reason?: string | null;
    now: Date;
    timeZone: string;
    gender: number | null | undefined;
    forms: Record<string, Record<string, unknown>>;
    /**
     * The form's identifier items (default: the definition's) and whether the saver may change stored ones (sees
     * them: default true). Masks sent back are put back to the stored values either way (identifier-values.ts).
     */
    identifiers?: { items: IdentifierItems; mayChange: boolean };
  },
): SaveJudgement {
  const sent = identifiersForSave(
    opts.identifiers?.items ?? identifierItemsOf(definition),
    values,
    existing?.values ?? {},
    opts.identifiers?.mayChange ?? true,
  );
  const evaluated = evaluateForm(definition, sent, {
    now: opts.now,
    timeZone: opts.timeZone,
    gender: genderFromPatient(opts.gender),
    forms: opts.forms,
  });
  // A submitted form stays complete: saving it again is held to the submit rules (required row cells too).
  const blocking = blockingErrors(evaluated, opts.submit || existing?.state === FORM_STATE.submitted);
  if (blocking.length > 0) {
    const onlyRequired = blocking.every((e) => isMissingRequired(evaluated, e));
    throw AppError.badRequest('crf.invalid', onlyRequired ? MSG.fillRequired : '表单数据有误', {
      errors: blocking.map(issueOut),
    });
  }
  const before = existing?.values ?? {};
  const after = evaluated.values as Record<string, unknown>;
  const changed = changedItemNames(before, after);
  const wasSubmitted = existing?.state === FORM_STATE.submitted;
  const reason = opts.reason?.trim() || null;
  if (reasonRequired(existing?.state, changed) && !reason) {
    throw AppError.badRequest('crf.reason_required', '修改已提交的数据需要填写修改原因', { changedItems: changed });
  }
  const state = opts.submit || wasSubmitted ? FORM_STATE.submitted : FORM_STATE.incomplete;
  const sdv: Record<string, SdvMark> = { ...(existing?.sdv ?? {}) };
  const cleared = changed.filter((k) => sdv[k]);
  for (const k of cleared) delete sdv[k];
  if (changed.length > 0 && sdv[FORM_SDV_KEY]) {
    delete sdv[FORM_SDV_KEY];
    cleared.push(FORM_SDV_KEY);
  }
  return { after, changed, state, sdv, cleared, wasSubmitted, reason, warnings: evaluated.warnings };
}

/** A save's audit rows: the record's creation, each changed item, each voided verification mark, the submission. */
export function saveAuditEntries(
  base: { studyId: number; subjectRecordId: number; crfDataRecordId: number; crfId: number; crfVersion: number },
  existing: unknown,
  j: Pick<SaveJudgement, 'after' | 'changed' | 'cleared' | 'reason'> & { before: Record<string, unknown> },
  submits: boolean,
): AuditEntry[] {
  return [
    ...(existing ? [] : [{ ...base, action: 'crf.create' as const }]),
    ...j.changed.map((itemName) => ({
      ...base,
      action: 'item.update' as const,
      itemName,
      oldValue: j.before[itemName] ?? null,
      newValue: j.after[itemName] ?? null,
      reason: j.reason,
    })),
    ...j.cleared.map((itemName) => ({ ...base, action: 'sdv.clear' as const, itemName, reason: '数据修改后核查失效' })),
    ...(submits ? [{ ...base, action: 'crf.submit' as const }] : []),
  ];
}

/** The save's refusal when the record changed since it was read (the answer carries the current record). */
export function stale(current: typeof crfDataRecords.$inferSelect, mine: Record<string, unknown>) {
  const changedItems = changedItemNames(current.values, mine);
  return new AppError(409, 'crf.stale_version', '数据已被他人修改，请刷新后重试', {
    current: {
      crfDataRecordId: current.id,
      version: current.version,
      values: current.values,
      updatedBy: current.updatedBy,
      updateTime: current.updatedAt,
    },
    changedItems,
  });
}

export async function deleteData(
  ctx: AppContext,
  user: CurrentUser,
  access: StudyAccess,
  crfDataRecordId: number,
  reason: string,
) {
  await ctx.db.transaction(async (tx) => {
    const [row] = await tx
      .select()
      .from(crfDataRecords)
      .where(and(eq(crfDataRecords.id, crfDataRecordId), isNull(crfDataRecords.deletedAt)))
      .for('update');
    if (!row || row.studyId !== access.studyId) throw AppError.notFound('crf_data.not_found', '表单记录不存在');
    requireCrf(access, row.crfId, 'save');
    await assertWritable(tx, { studyId: row.studyId, subjectRecordId: row.subjectRecordId, crfDataRecordId: row.id });
    await tx
      .update(crfDataRecords)
      .set({ deletedAt: ctx.clock(), updatedBy: user.userId, updatedAt: ctx.clock() })
      .where(eq(crfDataRecords.id, row.id));
    await audit(tx, user, ctx.clock(), [
      {
        studyId: row.studyId,
        subjectRecordId: row.subjectRecordId,
        crfDataRecordId: row.id,
        crfId: row.crfId,
        crfVersion: row.crfVersion,
        action: 'crf.delete',
        oldValue: row.values,
        reason,
      },
    ]);
  });
}

export async function studyOfDataRecord(ctx: AppContext, crfDataRecordId: number) {
  const [row] = await ctx.db
    .select({ studyId: crfDataRecords.studyId })
    .from(crfDataRecords)
    .where(eq(crfDataRecords.id, crfDataRecordId));
  return row?.studyId;
}

/** Source data verification marks, by item or for the whole form; audited, and cleared by a later change. */
export async function setSdv(
  ctx: AppContext,
  user: CurrentUser,
  access: StudyAccess,
  input: { crfDataRecordId: number; itemNames?: string[]; verified: boolean },
) {
  return ctx.db.transaction(async (tx) => {
    const [row] = await tx
      .select()
      .from(crfDataRecords)
      .where(and(eq(crfDataRecords.id, input.crfDataRecordId), isNull(crfDataRecords.deletedAt)))
      .for('update');
    if (!row || row.studyId !== access.studyId) throw AppError.notFound('crf_data.not_found', '表单记录不存在');
    requireCrf(access, row.crfId, 'sdv');
    await assertWritable(tx, { studyId: row.studyId, subjectRecordId: row.subjectRecordId, crfDataRecordId: row.id });
    const names = input.itemNames?.length
      ? input.itemNames
      : [...Object.keys(row.values).filter((k) => !isEmptyValue(row.values[k])), FORM_SDV_KEY];
    const sdv = { ...row.sdv };
    const mark: SdvMark = { by: user.userId, byName: user.name, at: ctx.clock().toISOString() };
    const touched = names.filter((n) => (input.verified ? !sdv[n] : Boolean(sdv[n])));
    for (const n of touched) {
      if (input.verified) sdv[n] = mark;
      else delete sdv[n];
    }
    await tx.update(crfDataRecords).set({ sdv }).where(eq(crfDataRecords.id, row.id));
    await audit(
      tx,
      user,
      ctx.clock(),
      touched.map((itemName) => ({
        studyId: row.studyId,
        subjectRecordId: row.subjectRecordId,
        crfDataRecordId: row.id,
        crfId: row.crfId,
        crfVersion: row.crfVersion,
        action: input.verified ? 'sdv.verify' : 'sdv.unverify',
        itemName,
      })),
    );
    return sdv;
  });
}

/** The overview of a subject's casebook: every form the caller may view, with its records. */
export async function overview(
  ctx: AppContext,
  access: StudyAccess,
  subjectRecordId: number,
  crfId?: number,
  crfDataRecordId?: number,
) {
  const record = await liveRecord(ctx.db, subjectRecordId);
  const subject = await getSubjectByRecord(ctx, subjectRecordId, access);
  const menu = await crfMenu(ctx, access, subjectRecordId);
  const forms = await ctx.db.select().from(crfs).where(eq(crfs.studyId, record.studyId)).orderBy(asc(crfs.id));
  const wanted = forms.filter((f) => can(access, f.id, 'view') && (!crfId || f.id === crfId));
  const rows = wanted.length
    ? await ctx.db
        .select()
        .from(crfDataRecords)
        .where(
          and(
            eq(crfDataRecords.subjectRecordId, subjectRecordId),
            inArray(
              crfDataRecords.crfId,
              wanted.map((f) => f.id),
            ),
            isNull(crfDataRecords.deletedAt),
          ),
        )
        .orderBy(asc(crfDataRecords.id))
    : [];
  const result = [];
  const files: Record<string, string> = {};
  for (const form of wanted) {
    const mine = rows.filter((r) => r.crfId === form.id && (!crfDataRecordId || r.id === crfDataRecordId));
    const version = mine[0]?.crfVersion ?? form.currentVersion;
    const definition = await definitionOf(ctx.db, form.id, version);
    const ids = await formIdentifiers(
      ctx.db,
      form.id,
      mine.map((r) => r.crfVersion),
      form.currentVersion,
    );
    const shown = mine.map((r) => ({ ...r, values: valuesFor(access, ids, r.values) }));
    const formFiles = await filesOf(
      ctx.db,
      record.studyId,
      definition,
      shown.map((r) => r.values),
    );
    Object.assign(files, formFiles);
    result.push({
      crfId: form.id,
      title: form.title,
      option: definition.option ?? {},
      definition,
      records: shown.map((r) => ({ crfDataRecordId: r.id, values: r.values, state: r.state })),
    });
  }
  return { subject, menu, crfs: result, files };
}

export async function latestRecordsOf(db: Db, subjectRecordId: number) {
  return db
    .select()
    .from(crfDataRecords)
    .where(and(eq(crfDataRecords.subjectRecordId, subjectRecordId), isNull(crfDataRecords.deletedAt)))
    .orderBy(desc(crfDataRecords.updatedAt));
}
