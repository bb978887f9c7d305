import { and, eq, inArray, isNull, ne, sql } from 'drizzle-orm';
import {
  DEFAULT_MESSAGE_TEMPLATES,
  dueMessages,
  maskMobile,
  maskName,
  maskOpenId,
  MESSAGE_MSG,
  nextSendTime,
  renderMessage,
  todayString,
  type DueMessage,
  type MessageRules,
  type ScheduleVisit,
} from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import {
  crfs,
  followRecordCrfs,
  followRecords,
  messageOptOuts,
  messageRules,
  patientMessages,
  patientReportedCrfs,
  studies,
  subjects,
  users,
} from '../../db/schema/index.js';
import type { ScheduledTask } from '../../shared/scheduled-task.js';
import { providerOf } from './messaging-providers.js';
import { rulesOf } from './messaging-rules.service.js';

/** The send job's kind on the job queue. */
export const MESSAGE_SEND_JOB_KIND = 'message-send';

export const SKIP_NO_MOBILE = '未登记手机号';
export const SKIP_NO_BINDING = '未绑定公众号';
export const SKIP_TEST_PATIENT = '测试患者不经正式通道发送';
export const SKIP_NO_CHANNEL = '未配置微信公众号';

/** Where a message's link points: EDC_PUBLIC_URL (the address patients open) before the /meil path. */
export const patientLink = (studyId: number, crfId: number | null) => {
  const base = (process.env.EDC_PUBLIC_URL ?? '').trim().replace(/\/+$/, '');
  return crfId === null ? `${base}/meil?studyId=${studyId}` : `${base}/meil/form/${crfId}?studyId=${studyId}`;
};

/** Open visits (not done, lost or deleted) of live patients, with their patient-reported forms. */
async function openVisits(ctx: AppContext, studyId: number): Promise<ScheduleVisit[]> {
  const rows = await ctx.db
    .select({
      id: followRecords.id,
      subjectId: followRecords.subjectId,
      visitName: followRecords.visitName,
      plannedDate: followRecords.plannedDate,
      windowBefore: followRecords.windowBefore,
      windowAfter: followRecords.windowAfter,
    })
    .from(followRecords)
    .innerJoin(subjects, and(eq(subjects.id, followRecords.subjectId), isNull(subjects.deletedAt)))
    .where(and(eq(followRecords.studyId, studyId), isNull(followRecords.completedOn), isNull(followRecords.mark)));
  if (rows.length === 0) return [];
  const forms = await ctx.db
    .select({
      followRecordId: followRecordCrfs.followRecordId,
      crfId: followRecordCrfs.crfId,
      formName: crfs.title,
      answered: sql<boolean>`${followRecordCrfs.crfDataRecordId} is not null`,
    })
    .from(followRecordCrfs)
    .innerJoin(
      patientReportedCrfs,
      and(
        eq(patientReportedCrfs.studyId, followRecordCrfs.studyId),
        eq(patientReportedCrfs.crfId, followRecordCrfs.crfId),
      ),
    )
    .innerJoin(crfs, eq(crfs.id, followRecordCrfs.crfId))
    .where(eq(followRecordCrfs.studyId, studyId));
  const byVisit = new Map<number, ScheduleVisit['proForms']>();
  for (const f of forms) {
    const list = byVisit.get(f.followRecordId) ?? [];
    list.push({ crfId: f.crfId, formName: f.formName, answered: !!f.answered });
    byVisit.set(f.followRecordId, list);
  }
  return rows.map((r) => ({
    followRecordId: r.id,
    subjectId: r.subjectId,
    visitName: r.visitName,
    plannedDate: r.plannedDate,
    windowBefore: r.windowBefore,
    windowAfter: r.windowAfter,
    closed: false,
    proForms: byVisit.get(r.id) ?? [],
  }));
}

/** Recorded occasions: dedupe key → the study-zone date it was recorded. */
async function recordedKeys(ctx: AppContext, studyId: number, timeZone: string) {
  const rows = await ctx.db
    .select({ key: patientMessages.dedupeKey, at: patientMessages.createdAt })
    .from(patientMessages)
    .where(eq(patientMessages.studyId, studyId));
  return new Map(rows.map((r) => [r.key, todayString(r.at, timeZone)]));
}

interface StudyRow {
  studyId: number;
  studyName: string;
  timeZone: string;
}

/** One study's pass: the due messages recorded (queued, or skipped with why). Answers how many rows it inserted. */
export async function scheduleStudy(ctx: AppContext, study: StudyRow, rules: MessageRules, now: Date) {
  const today = todayString(now, study.timeZone);
  const due = dueMessages({
    rules,
    today,
    visits: await openVisits(ctx, study.studyId),
    recorded: await recordedKeys(ctx, study.studyId, study.timeZone),
  });
  if (due.length === 0) return 0;
  const subjectIds = [...new Set(due.map((d) => d.subjectId))];
  const people = await ctx.db
    .select({
      id: subjects.id,
      name: subjects.subjectName,
      mobile: subjects.mobile,
      openId: subjects.openId,
      test: subjects.test,
      optedOut: sql<boolean>`${messageOptOuts.subjectId} is not null`,
    })
    .from(subjects)
    .leftJoin(
      messageOptOuts,
      and(eq(messageOptOuts.studyId, subjects.studyId), eq(messageOptOuts.subjectId, subjects.id)),
    )
    .where(inArray(subjects.id, subjectIds));
  const byId = new Map(people.map((p) => [p.id, p]));
  const provider = providerOf(rules.channel);
  const notBefore = nextSendTime(now, study.timeZone, rules.quietStart, rules.quietEnd);

  const rows = due.map((d: DueMessage) => {
    const p = byId.get(d.subjectId)!;
    const address = rules.channel === 'sms' ? p.mobile?.trim() : p.openId?.trim();
    const recipient = address ? (rules.channel === 'sms' ? maskMobile(address) : maskOpenId(address)) : '';
    const skip = p.optedOut
      ? MESSAGE_MSG.optedOut
      : !address
        ? rules.channel === 'sms'
          ? SKIP_NO_MOBILE
          : SKIP_NO_BINDING
        : !provider
          ? SKIP_NO_CHANNEL
          : p.test && provider.name !== 'dev'
            ? SKIP_TEST_PATIENT
            : null;
    const template = rules.templates[d.kind] ?? DEFAULT_MESSAGE_TEMPLATES[d.kind];
    const content = renderMessage(template, {
      ...d.vars,
      patient: maskName(p.name),
      study: study.studyName,
      link: patientLink(study.studyId, d.crfId),
    });
    return {
      studyId: study.studyId,
      subjectId: d.subjectId,
      kind: d.kind,
      channel: rules.channel,
      recipient,
      followRecordId: d.followRecordId,
      crfId: d.crfId,
      dedupeKey: d.dedupeKey,
      templateKey: rules.templates[d.kind] ? `study:${d.kind}` : `default:${d.kind}`,
      content,
      state: skip ? 'skipped' : 'queued',
      error: skip,
      notBefore,
      createdAt: now,
      updatedAt: now,
    };
  });
  const inserted = await ctx.db
    .insert(patientMessages)
    .values(rows)
    .onConflictDoNothing({ target: [patientMessages.studyId, patientMessages.dedupeKey] })
    .returning({ id: patientMessages.id });
  return inserted.length;
}

/** Every study with enabled rules; answers rows inserted. */
export async function scheduleMessages(ctx: AppContext, now: Date): Promise<number> {
  const enabled = await ctx.db
    .select({ studyId: studies.studyId, studyName: studies.studyName, timeZone: studies.timeZone })
    .from(messageRules)
    .innerJoin(studies, eq(studies.studyId, messageRules.studyId))
    .where(eq(messageRules.enabled, true));
  let total = 0;
  for (const study of enabled) {
    // One study's broken data must not stop the others' reminders.
    try {
      total += await scheduleStudy(ctx, study, await rulesOf(ctx.db, study.studyId), now);
    } catch (err) {
      console.error(`messages.schedule: study ${study.studyId}`, err);
    }
  }
  return total;
}

/** The owner of the scheduler's send job: the first active administrator account (the job record needs one). */
async function systemOwner(ctx: AppContext): Promise<number | null> {
  const [row] = await ctx.db
    .select({ id: users.userId })
    .from(users)
    .where(and(isNull(users.deletedAt), ne(users.userId, 0)))
    .orderBy(users.userId)
    .limit(1);
  return row?.id ?? null;
}

/** Hourly: records what is due in each study's zone, then asks the send job to send it. */
export function messagesScheduleTask(ctx: AppContext): ScheduledTask {
  return {
    name: 'messages.schedule',
    every: 'hour',
    async run(now) {
      const inserted = await scheduleMessages(ctx, now);
      if (inserted > 0) {
        const owner = await systemOwner(ctx);
        if (owner !== null) await ctx.jobs.enqueue(MESSAGE_SEND_JOB_KIND, {}, { ownerId: owner });
      }
      return `${inserted} patient messages recorded`;
    },
  };
}
