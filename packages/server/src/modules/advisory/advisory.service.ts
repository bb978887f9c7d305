import { aliasedTable, and, count, desc, eq, ilike, isNull, or, sql, type SQL } from 'drizzle-orm';
import {
  buttonKey,
  CONSULT_STATE_LABEL,
  maskName,
  type ConsultPush,
  type ConsultQuestionInput,
  type ConsultState,
  type ConsultView,
} from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import type { Db } from '../../db/client.js';
import { consultations, studyPersonnel, studyRoles, subjectRecords, subjects, users } from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';
import type { CurrentUser } from '../../shared/current-user.js';
import type { PageRequest } from '../../shared/paging.js';
import { subjectInCallerSites } from '../../shared/patient-site.js';
import type { StudyAccess } from '../../shared/study-access.js';
import { audit } from '../audit/audit.service.js';
import { seesIdentifiers } from '../subjects/subject.service.js';

/** Reading the study's questions (a question is the patient's health information; core STUDY_BUTTONS). */
export const CONSULT_VIEW = buttonKey('business.consult.view');
/** The study permission of the people who answer, close and enter questions; it includes CONSULT_VIEW. */
export const CONSULT_REPLY = buttonKey('business.consult.reply');

const WAITING: ConsultState = 0;
const ANSWERED: ConsultState = 1;
const CLOSED: ConsultState = 2;

const notFound = () => AppError.notFound('consult.not_found', '咨询不存在');
const subjectMissing = () => AppError.badRequest('consult.subject_not_found', '患者不存在');

export interface ConsultFilter {
  state?: ConsultState | undefined;
  /** In the title or the question, or the patient's code. */
  keyword?: string | undefined;
  subjectId?: number | undefined;
}

const answerer = aliasedTable(users, 'answerer');
const creator = aliasedTable(users, 'creator');

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

async function selectViews(ctx: AppContext, access: StudyAccess, where: SQL | undefined, page?: PageRequest) {
  const base = ctx.db
    .select({
      row: consultations,
      identificationCode: subjects.identificationCode,
      subjectName: subjects.subjectName,
      answeredByName: answerer.name,
      createdByName: creator.name,
    })
    .from(consultations)
    .leftJoin(subjects, and(eq(subjects.id, consultations.subjectId), eq(subjects.studyId, consultations.studyId)))
    .leftJoin(answerer, eq(answerer.userId, consultations.answeredBy))
    .leftJoin(creator, eq(creator.userId, consultations.createdBy))
    .where(where)
    .orderBy(
      // Waiting questions first, then the newest.
      sql`case when ${consultations.state} = ${WAITING} then 0 else 1 end`,
      desc(consultations.createdAt),
      desc(consultations.id),
    );
  const rows = page ? await base.limit(page.limit).offset(page.offset) : await base;
  const clear = seesIdentifiers(access);
  return rows.map((r): ConsultView => ({
    id: r.row.id,
    studyId: r.row.studyId,
    subjectId: r.row.subjectId,
    identificationCode: r.identificationCode,
    subjectName: r.subjectName === null ? null : clear ? r.subjectName : maskName(r.subjectName),
    source: r.row.source === 'patient' ? 'patient' : 'staff',
    title: r.row.title,
    question: r.row.question,
    state: r.row.state as ConsultState,
    stateName: CONSULT_STATE_LABEL[r.row.state as ConsultState] ?? '',
    answer: r.row.answer,
    answeredByName: r.answeredByName,
    answeredTime: r.row.answeredAt?.toISOString() ?? null,
    closedTime: r.row.closedAt?.toISOString() ?? null,
    createdByName: r.createdByName,
    createTime: r.row.createdAt.toISOString(),
  }));
}

/**
 * advisory/manager/list (KNOW-05): the study's questions, paged, waiting ones first, for holders of 查看咨询: those
 * of patients at the caller's sites (分中心) and those naming no patient.
 */
export async function listConsults(ctx: AppContext, access: StudyAccess, filter: ConsultFilter, page: PageRequest) {
  const keyword = filter.keyword?.trim();
  const like = keyword ? `%${escapeLike(keyword)}%` : null;
  const where = and(
    eq(consultations.studyId, access.studyId),
    access.siteIds === null
      ? undefined
      : or(isNull(consultations.subjectId), subjectInCallerSites(access, consultations.subjectId)),
    filter.state === undefined ? undefined : eq(consultations.state, filter.state),
    filter.subjectId === undefined ? undefined : eq(consultations.subjectId, filter.subjectId),
    like
      ? or(
          ilike(consultations.title, like),
          ilike(consultations.question, like),
          sql`exists (select 1 from subjects s where s.id = ${consultations.subjectId}
                and s.study_id = ${consultations.studyId} and s.identification_code ilike ${like})`,
        )
      : undefined,
  );
  const [{ total }] = (await ctx.db.select({ total: count() }).from(consultations).where(where)) as [{ total: number }];
  return { list: await selectViews(ctx, access, where, page), total: Number(total) };
}

export async function getConsult(ctx: AppContext, access: StudyAccess, id: number): Promise<ConsultView> {
  const [view] = await selectViews(
    ctx,
    access,
    and(eq(consultations.studyId, access.studyId), eq(consultations.id, id)),
  );
  if (!view) throw notFound();
  return view;
}

/** A live patient of the study and their casebook (the audit rows are filed under it). */
async function patientOf(db: Db, studyId: number, subjectId: number) {
  const [row] = await db
    .select({ subjectId: subjects.id, subjectRecordId: subjectRecords.id })
    .from(subjects)
    .leftJoin(subjectRecords, and(eq(subjectRecords.subjectId, subjects.id), isNull(subjectRecords.deletedAt)))
    .where(and(eq(subjects.id, subjectId), eq(subjects.studyId, studyId), isNull(subjects.deletedAt)))
    .limit(1);
  return row ?? null;
}

/** The staff of the study who answer questions: told when one is asked. */
async function answerersOf(ctx: AppContext, studyId: number): Promise<number[]> {
  const rows = await ctx.db
    .select({ userId: studyPersonnel.userId })
    .from(studyPersonnel)
    .innerJoin(studyRoles, eq(studyRoles.id, studyPersonnel.studyRoleId))
    .where(and(eq(studyPersonnel.studyId, studyId), sql`${studyRoles.permissions} ? ${CONSULT_REPLY}`));
  return rows.map((r) => r.userId);
}

/** Pushes ids only (a question's text is the patient's health information): the lists read again. */
async function notify(ctx: AppContext, push: ConsultPush, also: (number | null)[] = []) {
  const targets = new Set([...(await answerersOf(ctx, push.studyId)), ...also.filter((u): u is number => u !== null)]);
  for (const userId of targets) ctx.realtime.toUser(userId, 'consult', push);
}

interface Asker {
  /** The staff user entering the question; null when the patient asks. */
  user: CurrentUser | null;
  /** Who the audit trail names. */
  actor: Pick<CurrentUser, 'userId' | 'name' | 'userName'>;
}

async function ask(ctx: AppContext, studyId: number, subjectId: number, input: ConsultQuestionInput, asker: Asker) {
  const at = ctx.clock();
  const row = await ctx.db.transaction(async (tx) => {
    const patient = await patientOf(tx, studyId, subjectId);
    if (!patient) throw subjectMissing();
    const [created] = await tx
      .insert(consultations)
      .values({
        studyId,
        subjectId,
        source: asker.user ? 'staff' : 'patient',
        createdBy: asker.user?.userId ?? null,
        title: input.title,
        question: input.question,
        state: WAITING,
        createdAt: at,
        updatedAt: at,
      })
      .returning();
    await audit(tx, asker.actor as CurrentUser, at, [
      {
        studyId,
        subjectRecordId: patient.subjectRecordId,
        action: 'consult.ask',
        itemName: `咨询#${created!.id}`,
        newValue: { title: input.title, question: input.question },
      },
    ]);
    return created!;
  });
  await notify(ctx, { studyId, consultId: row.id, kind: 'consult.asked' });
  return row.id;
}

/** Staff enter a question a patient asked them (by telephone, at the clinic) on the patient's behalf. */
export async function askOnBehalf(
  ctx: AppContext,
  user: CurrentUser,
  access: StudyAccess,
  input: ConsultQuestionInput & { subjectId: number },
): Promise<ConsultView> {
  const id = await ask(ctx, access.studyId, input.subjectId, input, { user, actor: user });
  return getConsult(ctx, access, id);
}

/**
 * The patient side's call (docs/content.md, 在线咨询): a patient bound to their study record asks a question.
 * The caller (the patient pages' route) has established who the patient is; the audit trail names the patient
 * by their record id, never by name.
 */
export async function askAsPatient(
  ctx: AppContext,
  patient: { studyId: number; subjectId: number },
  input: ConsultQuestionInput,
): Promise<{ id: number }> {
  const actor = { userId: 0, name: '患者', userName: `subject:${patient.subjectId}` };
  const id = await ask(ctx, patient.studyId, patient.subjectId, input, { user: null, actor });
  return { id };
}

/** The patient side's list: a patient's own questions with their answers. */
export async function listForPatient(ctx: AppContext, patient: { studyId: number; subjectId: number }) {
  return ctx.db
    .select({
      id: consultations.id,
      title: consultations.title,
      question: consultations.question,
      state: consultations.state,
      answer: consultations.answer,
      answeredAt: consultations.answeredAt,
      createdAt: consultations.createdAt,
    })
    .from(consultations)
    .where(and(eq(consultations.studyId, patient.studyId), eq(consultations.subjectId, patient.subjectId)))
    .orderBy(desc(consultations.createdAt), desc(consultations.id));
}

/** A question of the study, locked for answering or closing: a closed one takes neither. */
async function lockedUnclosedRow(tx: Db, studyId: number, id: number) {
  const [row] = await tx
    .select()
    .from(consultations)
    .where(and(eq(consultations.studyId, studyId), eq(consultations.id, id)))
    .for('update');
  if (!row) throw notFound();
  if (row.state === CLOSED) throw AppError.conflict('consult.closed', '咨询已关闭');
  return row;
}

async function recordOf(tx: Db, studyId: number, subjectId: number | null) {
  if (subjectId === null) return null;
  return (await patientOf(tx, studyId, subjectId))?.subjectRecordId ?? null;
}

/** A staff step on a question: what it sets, how the audit trail and the push name it. */
interface StaffStep {
  change: Partial<typeof consultations.$inferInsert>;
  action: 'consult.answer' | 'consult.close';
  oldValue: (before: typeof consultations.$inferSelect) => unknown;
  newValue: unknown;
  notice: ConsultPush['kind'];
}

/**
 * Takes a staff step on a question not yet closed: the change and its audit row (on the casebook of the question's
 * patient, if any) in one transaction, then the push to the answerers and the asker.
 */
async function takeStaffStep(
  ctx: AppContext,
  user: CurrentUser,
  access: StudyAccess,
  id: number,
  at: Date,
  step: StaffStep,
): Promise<ConsultView> {
  const row = await ctx.db.transaction(async (tx) => {
    const before = await lockedUnclosedRow(tx, access.studyId, id);
    await tx
      .update(consultations)
      .set({ ...step.change, updatedAt: at })
      .where(eq(consultations.id, id));
    await audit(tx, user, at, [
      {
        studyId: access.studyId,
        subjectRecordId: await recordOf(tx, access.studyId, before.subjectId),
        action: step.action,
        itemName: `咨询#${id}`,
        oldValue: step.oldValue(before),
        newValue: step.newValue,
      },
    ]);
    return before;
  });
  await notify(ctx, { studyId: access.studyId, consultId: id, kind: step.notice }, [row.createdBy]);
  return getConsult(ctx, access, id);
}

/** 回复: a waiting or answered question gets (a new) answer and is 已回复; a closed one is left as it is. */
export async function answerConsult(
  ctx: AppContext,
  user: CurrentUser,
  access: StudyAccess,
  id: number,
  answer: string,
): Promise<ConsultView> {
  const at = ctx.clock();
  return takeStaffStep(ctx, user, access, id, at, {
    change: { answer, state: ANSWERED, answeredBy: user.userId, answeredAt: at },
    action: 'consult.answer',
    oldValue: (before) => ({ state: CONSULT_STATE_LABEL[before.state as ConsultState], answer: before.answer }),
    newValue: { state: CONSULT_STATE_LABEL[ANSWERED], answer },
    notice: 'consult.answered',
  });
}

/** 关闭: the question needs nothing more (answered, or not to be answered here). Closing twice is refused. */
export async function closeConsult(
  ctx: AppContext,
  user: CurrentUser,
  access: StudyAccess,
  id: number,
): Promise<ConsultView> {
  const at = ctx.clock();
  return takeStaffStep(ctx, user, access, id, at, {
    change: { state: CLOSED, closedBy: user.userId, closedAt: at },
    action: 'consult.close',
    oldValue: (before) => ({ state: CONSULT_STATE_LABEL[before.state as ConsultState] }),
    newValue: { state: CONSULT_STATE_LABEL[CLOSED] },
    notice: 'consult.closed',
  });
}
