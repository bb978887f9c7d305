import {
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  serial,
  smallint,
  text,
  timestamp,
  unique,
  varchar,
} from 'drizzle-orm/pg-core';
import { timestamps } from './columns.js';
import { subjects } from './capture.js';
import { followRecords } from './follow.js';
import { crfs, studies } from './study.js';
import { users } from './system.js';

/**
 * A study's rules for messages to its patients (随访提醒, 问卷邀请; issue 38, docs/patient-portal.md): whether
 * they are sent, on which channel, when (days before a visit window opens, its first day, overdue; an invitation to
 * a patient-reported form when due and a reminder M days later), the quiet hours in the study's zone and the
 * study's own wording of each template (kind → text; a kind not named uses core's default text).
 */
export const messageRules = pgTable('message_rules', {
  studyId: integer('study_id')
    .primaryKey()
    .references(() => studies.studyId),
  enabled: boolean('enabled').notNull().default(false),
  /** sms | wechat (core MESSAGE_CHANNELS). */
  channel: varchar('channel', { length: 10 }).notNull().default('sms'),
  /** Days before a visit window opens to remind; null: no such reminder. */
  daysBefore: smallint('days_before').default(3),
  remindFirstDay: boolean('remind_first_day').notNull().default(true),
  remindOverdue: boolean('remind_overdue').notNull().default(true),
  invitePro: boolean('invite_pro').notNull().default(true),
  /** Days without an answer before an invitation or reminder is repeated (once); null: never. */
  remindAgainDays: smallint('remind_again_days').default(3),
  /** `HH:mm` in the study's zone: no message is sent from quietStart until quietEnd. */
  quietStart: varchar('quiet_start', { length: 5 }).notNull().default('21:00'),
  quietEnd: varchar('quiet_end', { length: 5 }).notNull().default('08:00'),
  templates: jsonb('templates').$type<Record<string, string>>().notNull().default({}),
  updatedBy: integer('updated_by').references(() => users.userId),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

/**
 * One message to one patient: what was due, to whom (the masked number or openId, never the clear number), which
 * template and text, when it may go (quiet hours), each attempt's provider answer, and its state
 * (queued → sent → delivered, or failed / skipped with the reason). `dedupeKey` names the occasion (the visit and
 * the kind, the form and the day), so a scheduler run repeated or raced never sends one occasion twice.
 */
export const patientMessages = pgTable(
  'patient_messages',
  {
    id: serial('id').primaryKey(),
    studyId: integer('study_id')
      .notNull()
      .references(() => studies.studyId),
    subjectId: integer('subject_id')
      .notNull()
      .references(() => subjects.id),
    /** core MESSAGE_KINDS: visit_before | visit_first_day | visit_overdue | pro_invite | pro_remind. */
    kind: varchar('kind', { length: 20 }).notNull(),
    channel: varchar('channel', { length: 10 }).notNull(),
    /** The provider that sent it (dev | tencent | aliyun | wechat); null until an attempt. */
    provider: varchar('provider', { length: 20 }),
    /** 138****5678, or the openId: what a person reading the record may see. */
    recipient: varchar('recipient', { length: 100 }).notNull(),
    followRecordId: integer('follow_record_id').references(() => followRecords.id),
    crfId: integer('crf_id').references(() => crfs.id),
    dedupeKey: varchar('dedupe_key', { length: 120 }).notNull(),
    templateKey: varchar('template_key', { length: 40 }).notNull(),
    content: text('content').notNull(),
    /** queued | sending | sent | delivered | failed | skipped (core MESSAGE_STATES). */
    state: varchar('state', { length: 12 }).notNull().default('queued'),
    attempts: smallint('attempts').notNull().default(0),
    /** Not before this time (the end of the quiet hours it fell in). */
    notBefore: timestamp('not_before', { withTimezone: true }).notNull().defaultNow(),
    sentAt: timestamp('sent_at', { withTimezone: true }),
    deliveredAt: timestamp('delivered_at', { withTimezone: true }),
    providerMessageId: varchar('provider_message_id', { length: 100 }),
    /** The provider's last answer as it gave it (its code and message), for the delivery report. */
    providerAnswer: jsonb('provider_answer'),
    error: varchar('error', { length: 500 }),
    ...timestamps,
  },
  (t) => [
    unique('patient_messages_occasion').on(t.studyId, t.dedupeKey),
    unique('patient_messages_study_key').on(t.studyId, t.id),
    index('patient_messages_subject').on(t.subjectId, t.createdAt),
    index('patient_messages_due').on(t.state, t.notBefore),
  ],
);

/** A patient who opted out (退订) of a study's messages: none is sent while the row stands. */
export const messageOptOuts = pgTable(
  'message_opt_outs',
  {
    studyId: integer('study_id')
      .notNull()
      .references(() => studies.studyId),
    subjectId: integer('subject_id')
      .notNull()
      .references(() => subjects.id),
    /** patient (from the message's link or /meil) | staff (on the patient's word, with a reason). */
    source: varchar('source', { length: 10 }).notNull(),
    reason: varchar('reason', { length: 500 }),
    createdBy: integer('created_by').references(() => users.userId),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.studyId, t.subjectId] })],
);
