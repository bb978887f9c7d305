import { z } from 'zod';
import { rowIdSchema, rowIdTextSchema } from './ids.js';
import { pagingQueryFields, studyIdQuerySchema } from './request-fields.js';

/**
 * The HTTP contract of messages to patients (随访提醒, 问卷邀请; issue 38, docs/patient-portal.md): a study's rules
 * (when to remind, on which channel, its templates, quiet hours), the record of every message (to whom, masked; which
 * template; when; the provider's answer; delivered or failed), the delivery report, and a patient's opt-out (退订).
 */

export const MESSAGE_MSG = {
  saved: '保存成功',
  optedOut: '已退订',
  optedIn: '已恢复提醒',
  alreadyOptedOut: '该患者已退订提醒',
  notOptedOut: '该患者未退订提醒',
  reasonRequired: '请填写原因',
  badTime: '时间格式应为 HH:mm',
  unknownTemplate: '未知的消息模板',
  unknownVariable: '模板中有未知的变量',
  outboxClosed: '当前未使用开发用消息通道',
} as const;

/** Where a message goes: a text message to the patient's mobile, or the study's WeChat official account. */
export const MESSAGE_CHANNELS = ['sms', 'wechat'] as const;
export type MessageChannel = (typeof MESSAGE_CHANNELS)[number];
export const MESSAGE_CHANNEL_LABELS: Record<MessageChannel, string> = { sms: '短信', wechat: '微信公众号' };

/** The occasions a message is sent for. */
export const MESSAGE_KINDS = ['visit_before', 'visit_first_day', 'visit_overdue', 'pro_invite', 'pro_remind'] as const;
export type MessageKind = (typeof MESSAGE_KINDS)[number];
export const MESSAGE_KIND_LABELS: Record<MessageKind, string> = {
  visit_before: '随访窗口前提醒',
  visit_first_day: '随访窗口首日提醒',
  visit_overdue: '随访超窗提醒',
  pro_invite: '问卷邀请',
  pro_remind: '问卷再次提醒',
};

/** queued → sending → sent → delivered; failed after the last retry; skipped when it must not go (with why). */
export const MESSAGE_STATES = ['queued', 'sending', 'sent', 'delivered', 'failed', 'skipped'] as const;
export type MessageState = (typeof MESSAGE_STATES)[number];
export const MESSAGE_STATE_LABELS: Record<MessageState, string> = {
  queued: '待发送',
  sending: '发送中',
  sent: '已发送',
  delivered: '已送达',
  failed: '发送失败',
  skipped: '未发送',
};

/** The variables a template may use, with what they stand for (the settings page lists them). */
export const MESSAGE_VARIABLES = {
  patient: '患者姓名（脱敏，如 张*）',
  study: '项目名称',
  visit: '随访名称',
  window: '随访窗口（如 2026-03-01 至 2026-03-15）',
  form: '问卷名称',
  link: '填写或查看的链接',
} as const;
export type MessageVariable = keyof typeof MESSAGE_VARIABLES;

/** The wording a study starts with; `{name}` is a variable. SMS providers send their approved template instead. */
export const DEFAULT_MESSAGE_TEMPLATES: Record<MessageKind, string> = {
  visit_before: '{patient}您好，您参加的{study}将于{window}进行{visit}，请按时到院随访。',
  visit_first_day: '{patient}您好，今天起可进行{study}的{visit}（{window}），请按时到院随访。',
  visit_overdue: '{patient}您好，您的{visit}已超出随访窗口（{window}），请尽快联系研究团队。',
  pro_invite: '{patient}您好，请填写{study}的问卷《{form}》：{link}',
  pro_remind: '{patient}您好，您尚未填写问卷《{form}》，请点击填写：{link}',
};

const hhmm = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, MESSAGE_MSG.badTime);

/** GET/PUT /api/business/messages/rules: a study's rules (PUT needs 患者提醒; the change is audited). */
export const messageRulesSchema = z.object({
  enabled: z.boolean(),
  channel: z.enum(MESSAGE_CHANNELS),
  /** Days before a visit window opens; null: no such reminder. */
  daysBefore: z.number().int().min(1).max(60).nullable(),
  remindFirstDay: z.boolean(),
  remindOverdue: z.boolean(),
  invitePro: z.boolean(),
  /** Days without an answer before one more reminder; null: never. */
  remindAgainDays: z.number().int().min(1).max(60).nullable(),
  quietStart: hhmm,
  quietEnd: hhmm,
  /** The study's own wording per kind; a kind left out uses DEFAULT_MESSAGE_TEMPLATES. */
  templates: z.partialRecord(z.enum(MESSAGE_KINDS), z.string().trim().min(1).max(300)),
});
export type MessageRules = z.output<typeof messageRulesSchema>;

export const DEFAULT_MESSAGE_RULES: MessageRules = {
  enabled: false,
  channel: 'sms',
  daysBefore: 3,
  remindFirstDay: true,
  remindOverdue: true,
  invitePro: true,
  remindAgainDays: 3,
  quietStart: '21:00',
  quietEnd: '08:00',
  templates: {},
};

export const messageRulesBodySchema = messageRulesSchema.extend({ studyId: rowIdSchema });

/** GET /api/business/messages: the study's messages, newest first (needs 患者提醒; site scope as patient lists). */
export const messageListQuerySchema = studyIdQuerySchema.extend({
  ...pagingQueryFields,
  subjectId: rowIdTextSchema.optional(),
  state: z.enum(MESSAGE_STATES).optional(),
  kind: z.enum(MESSAGE_KINDS).optional(),
  deptId: rowIdTextSchema.optional(),
});
export type MessageListQuery = z.output<typeof messageListQuerySchema>;

export const messageRowSchema = z.object({
  id: z.number(),
  subjectId: z.number(),
  identificationCode: z.string(),
  /** Masked as the patient list masks names. */
  subjectName: z.string(),
  kind: z.enum(MESSAGE_KINDS),
  channel: z.enum(MESSAGE_CHANNELS),
  provider: z.string().nullable(),
  /** 138****5678 or the openId. */
  recipient: z.string(),
  content: z.string(),
  state: z.enum(MESSAGE_STATES),
  attempts: z.number(),
  notBefore: z.string(),
  sentAt: z.string().nullable(),
  deliveredAt: z.string().nullable(),
  /** Why it failed or was not sent, in words a person reads. */
  error: z.string().nullable(),
  /** The provider's answer as it gave it (code, message). */
  providerAnswer: z.unknown().nullable(),
  createTime: z.string(),
});
export type MessageRow = z.output<typeof messageRowSchema>;

/** GET /api/business/messages/report: counts per kind and state over the study (or a site), for 发送统计. */
export const messageReportQuerySchema = studyIdQuerySchema.extend({ deptId: rowIdTextSchema.optional() });
export const messageReportSchema = z.object({
  total: z.number(),
  byState: z.record(z.string(), z.number()),
  byKind: z.array(z.object({ kind: z.enum(MESSAGE_KINDS), byState: z.record(z.string(), z.number()) })),
  optedOut: z.number(),
});
export type MessageReport = z.output<typeof messageReportSchema>;

/** POST /api/business/messages/opt-out and /opt-in: staff record a patient's word (reason required; audited). */
export const messageOptBodySchema = z.object({
  studyId: rowIdSchema,
  subjectId: rowIdSchema,
  reason: z.string().trim().min(1, MESSAGE_MSG.reasonRequired).max(500),
});

/** GET /api/business/messages/opt-out?studyId&subjectId: whether the patient opted out, when and how. */
export const messageOptStateSchema = z.object({
  optedOut: z.boolean(),
  source: z.enum(['patient', 'staff']).nullable(),
  reason: z.string().nullable(),
  createTime: z.string().nullable(),
});
