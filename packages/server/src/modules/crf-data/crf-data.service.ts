import { and, asc, desc, eq, inArray, isNull, type SQL } from 'drizzle-orm';
import {
  crfKey,
  FORM_STATE,
  formStateOf,
  genderFromPatient,
  initialValues,
  isEmptyValue,
  recordSummary,
  spineBandSetOf,
  STUDY_BUTTONS,
  type CrfAction,
  type CrfDefinition,
} from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import type { Db } from '../../db/client.js';
import { appliedRequests, crfDataRecords, crfStageCrfs, crfs, users, type SdvMark } from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';
import type { CurrentUser } from '../../shared/current-user.js';
import { hasStudyPermission, type StudyAccess } from '../../shared/study-access.js';
import { activeDoubtsOf } from '../doubt/doubt.service.js';
import { audit } from '../audit/audit.service.js';
import { fileKeysOf, fileNamesOf } from '../audit/audit-text.service.js';
import { assertWritable } from '../locks/lock-gate.js';
import { definitionOf, nodesOf } from '../study/crf-definitions.js';
import { newRecordVersion } from '../amendment/draft-version.service.js';
import { stagesWithForms } from '../study/setup.service.js';
import { FORM_SDV_KEY, issueOut } from './form-rules.js';
import { crfOfStudy, liveRecord, RequestAlreadyApplied, saveForm, type SaveInput } from './form-write.js';
import { otherFormValues, prefillFromPatient } from './linked-values.service.js';
import { getSubjectByRecord, listSignatures, seesIdentifiers } from '../subjects/subject.service.js';
import { checkSameRequest } from './save-request.js';
import { formIdentifiers, valuesFor } from './identifier-values.js';
import { refuseDirectSave } from '../double-entry/double-entry.service.js';

export type { SaveInput };
export { FORM_STATE };

export const can = (access: StudyAccess, crfId: number, action: CrfAction) =>
  hasStudyPermission(access, crfKey(crfId, action));

export function requireCrf(access: StudyAccess, crfId: number, action: CrfAction) {
  if (!can(access, crfId, action)) throw AppError.forbidden();
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

/** The condition naming the records of one form in one casebook that are not deleted. */
export function liveRecordsOfForm(subjectRecordId: number, crfId: number) {
  return and(
    eq(crfDataRecords.subjectRecordId, subjectRecordId),
    eq(crfDataRecords.crfId, crfId),
    isNull(crfDataRecords.deletedAt),
  );
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
  const { stages, links } = await stagesWithForms(ctx.db, record.studyId);
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
    /** 缺失原因: items marked with a missing-data code instead of a value (item → code). */
    missing: r.missing,
    /** 参考范围: the range each item was judged by at the last save; the form page flags ↑/↓ by its site ones. */
    labRanges: r.labRanges,
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
    .where(liveRecordsOfForm(subjectRecordId, crfId))
    .orderBy(asc(crfDataRecords.id));
  const repeatable = await isRepeatable(ctx.db, crfId);
  const current = crfDataRecordId ? rows.find((r) => r.id === crfDataRecordId) : repeatable ? undefined : rows[0];
  if (crfDataRecordId && !current) throw AppError.notFound('crf_data.not_found', '表单记录不存在');
  // A new record's form: a test patient's is the open draft (draft-version.service.ts), as its save will store it.
  const version = current?.crfVersion ?? (await newRecordVersion(ctx.db, subjectRecordId, crfId)) ?? crf.currentVersion;
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
    spineBandSet: spineBandSetOf(access.spineBandSet),
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
    .where(liveRecordsOfForm(subjectRecordId, crfId))
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
 * Save and submit on the form page (forms §4, CRF-27), through the one write path (form-write.ts): the engine
 * re-evaluates the whole form on the server and its verdict is final. Save keeps a partial form; submit needs
 * every visible required item and no error. The record's version guards against lost updates; every changed item
 * is audited in the same transaction; verification marks of changed items and signatures over the casebook are
 * voided.
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
  // 双份录入 (issue 37): a double-entry form's values come from its two reconciled entries, not from this save.
  await refuseDirectSave(ctx.db, input.crfId);
  // A request id already applied is found by the transaction itself (its version no longer matches, or its
  // claim conflicts), never by a read before it: a retry costs its refusal, a first try costs nothing.
  try {
    const written = await saveForm(ctx, { kind: 'staff', user, access }, input, alsoWrite);
    return {
      crfDataRecordId: written.crfDataRecordId,
      version: written.version,
      state: written.state,
      errors: [],
      warnings: written.warnings.map(issueOut),
      changedItems: written.changedItems,
    };
  } catch (err) {
    if (input.requestId && (err instanceof RequestAlreadyApplied || (err instanceof AppError && err.status === 409))) {
      const winner = await appliedAnswer(ctx.db, user.userId, input);
      if (winner) return winner;
    }
    throw err;
  }
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
  // Part 11 §11.50: the casebook's signatures show wherever its record is read, in the study's zone.
  const signatures = await listSignatures(ctx, subjectRecordId);
  return { subject, menu, crfs: result, files, signatures, timeZone: access.timeZone };
}

export async function latestRecordsOf(db: Db, subjectRecordId: number) {
  return db
    .select()
    .from(crfDataRecords)
    .where(and(eq(crfDataRecords.subjectRecordId, subjectRecordId), isNull(crfDataRecords.deletedAt)))
    .orderBy(desc(crfDataRecords.updatedAt));
}
