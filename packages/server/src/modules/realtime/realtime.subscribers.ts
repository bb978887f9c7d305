import { and, eq, inArray, isNull } from 'drizzle-orm';
import type { NoticePush } from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { crfs, studyPersonnel, users } from '../../db/schema/index.js';
import { studyAccessOf } from '../../shared/study-access-of.js';
import type { DeliveredEvent, DomainEvent, DomainEvents } from '../../shared/domain-events.js';
import { siteOfSubject } from '../../shared/patient-site.js';
import { canViewCrf, hasStudyPermission, seesSite } from '../../shared/study-access.js';
import { permissionsOf } from '../../shared/user-permissions.js';
import { waitingCount } from '../doubt/doubt.service.js';

type QueryEvent = Extract<DomainEvent, { type: 'query.opened' | 'query.answered' | 'query.closed' }>;
type RecordEvent = Extract<DomainEvent, { type: 'record.saved' | 'record.submitted' }>;

export const QUERY_EVENTS = ['query.opened', 'query.answered', 'query.closed'] as const;
export const RECORD_EVENTS = ['record.saved', 'record.submitted'] as const;

/**
 * The people a query event may concern: the study's staff, and whoever watches the study now
 * (a study:manage holder who is not staff sees the study's counts while on its pages).
 */
async function concernedUsers(ctx: AppContext, studyId: number): Promise<number[]> {
  const staff = await ctx.db
    .select({ userId: studyPersonnel.userId })
    .from(studyPersonnel)
    .where(eq(studyPersonnel.studyId, studyId));
  const ids = new Set(staff.map((s) => s.userId));
  for (const userId of await ctx.realtime.watchers(studyId)) ids.add(userId);
  if (ids.size === 0) return [];
  const enabled = await ctx.db
    .select({ userId: users.userId })
    .from(users)
    .where(and(inArray(users.userId, [...ids]), eq(users.status, 0), isNull(users.deletedAt)));
  return enabled.map((u) => u.userId);
}

/**
 * A query was raised, answered or closed: the CRF pages showing the form hear of it (`record.queries`), everyone
 * whose top-bar count it may change gets their new count
 * (computed as GET /api/business/doubts/count computes it), and the people it now waits for get a notice —
 * a new query goes to those who answer queries, an answer to those who close them, never to the one who acted.
 */
export async function pushQueryEvent(ctx: AppContext, delivered: DeliveredEvent): Promise<void> {
  const event = delivered.event as QueryEvent;
  const { studyId, crfId } = event;
  // The patient's site (分中心): a push about them goes only to those who see it (none known: all-sites callers only).
  const siteId = (await siteOfSubject(ctx.db, event.subjectId)) ?? null;
  // The form's state and markers changed: the CRF pages showing it read them again (the form's readers who see the
  // patient only).
  ctx.realtime.toStudy(studyId, 'record.queries', { studyId, subjectId: event.subjectId, crfId }, { crfId, siteId });
  const [crf] = await ctx.db.select({ title: crfs.title }).from(crfs).where(eq(crfs.id, crfId));
  for (const userId of await concernedUsers(ctx, studyId)) {
    const { permissions } = await permissionsOf(ctx.db, userId);
    const access = await studyAccessOf(ctx, userId, permissions, studyId);
    if (!access || !canViewCrf(access, crfId)) continue;
    const answers = hasStudyPermission(access, 'btn:study.doubt.reply');
    const closes = hasStudyPermission(access, 'btn:study.doubt.close');
    if (!answers && !closes) continue;
    const { waiting } = await waitingCount(ctx, access);
    ctx.realtime.toUser(userId, 'counts', { studyId, doubts: waiting });
    if (userId === event.by || event.type === 'query.closed') continue;
    // Their count is theirs to know; a notice naming another site's patient is not.
    if (!seesSite(access, siteId)) continue;
    if ((event.type === 'query.opened' && answers) || (event.type === 'query.answered' && closes)) {
      const notice: NoticePush = {
        eventId: delivered.id,
        kind: event.type,
        studyId,
        subjectId: event.subjectId,
        crfId,
        queryId: event.queryId,
        crfTitle: crf?.title ?? '',
      };
      ctx.realtime.toUser(userId, 'notice', notice);
    }
  }
}

/** A form record was saved or submitted: its readers watching the study hear of it (the CRF page offers to reload). */
export async function pushRecordSaved(ctx: AppContext, delivered: DeliveredEvent): Promise<void> {
  const event = delivered.event as RecordEvent;
  const siteId = (await siteOfSubject(ctx.db, event.subjectId)) ?? null;
  ctx.realtime.toStudy(
    event.studyId,
    'record.saved',
    {
      studyId: event.studyId,
      subjectId: event.subjectId,
      crfId: event.crfId,
      recordId: event.recordId,
      by: event.by,
    },
    { crfId: event.crfId, siteId },
  );
}

/** Registers the realtime pushes as outbox subscribers (each event once per subscriber, after commit). */
export function subscribeRealtime(ctx: AppContext, events: DomainEvents): void {
  events.subscribe('realtime.queries', QUERY_EVENTS, (delivered) => pushQueryEvent(ctx, delivered));
  events.subscribe('realtime.records', RECORD_EVENTS, (delivered) => pushRecordSaved(ctx, delivered));
}
