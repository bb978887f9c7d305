import { z } from 'zod';
import { rowIdSchema, rowIdTextSchema } from '../ids.js';
import { pagingQueryFields, studyIdQuerySchema } from '../request-fields.js';
import { isDateString, OFFSET_UNITS, type OffsetUnit } from './schedule.js';
import { FOLLOW_STATE_CODES } from './state.js';

/**
 * The HTTP contract of follow-up (forms §7, 随访): plans and their visits, the patients' visits and their forms, and
 * the overview. Requests as the server validates them, answers as the browser reads them.
 */

// ---- Requests ----

const dateSchema = z.string().refine(isDateString, '日期格式应为 yyyy-MM-dd');
const reasonSchema = (msg: string) => z.string({ error: msg }).trim().min(1, msg).max(500);
const flagSchema = z.union([z.boolean(), z.enum(['true', 'false']).transform((v) => v === 'true')]);
const offsetUnitSchema = z.enum(OFFSET_UNITS.map(([unit]) => unit) as [OffsetUnit, ...OffsetUnit[]]);
/** A list of values in the query, as `1,2` text or repeated keys. */
const csvSchema = <T extends z.ZodType>(item: T) =>
  z.preprocess((v) => (typeof v === 'string' ? v.split(',').filter(Boolean) : v), z.array(item).max(20));

/** One visit of a plan, as the plan dialog sends it. */
export const followPlanVisitBodySchema = z
  .object({
    id: rowIdSchema.nullish(),
    visitName: z.string().trim().min(1, '请输入访视名称').max(50),
    offset: z.number().int().min(0, '偏移不能为负数').max(3650),
    unit: offsetUnitSchema,
    windowBefore: z.number().int().min(0).max(365).default(0),
    windowAfter: z.number().int().min(0).max(365).default(0),
    repeatEvery: z.number().int().min(1).max(120).nullish(),
    repeatUntil: z.number().int().min(1).max(3650).nullish(),
    responsibleUserId: rowIdSchema.nullish(),
    crfIds: z.array(rowIdSchema).min(1, '请选择随访表单').max(50),
  })
  .refine((v) => !v.repeatEvery || (v.repeatUntil ?? 0) >= v.offset, {
    message: '重复截止必须不早于首次访视',
    path: ['repeatUntil'],
  });
export type FollowPlanVisitBody = z.input<typeof followPlanVisitBodySchema>;

export const followPlanBodySchema = z.object({
  studyId: rowIdSchema,
  planName: z.string().trim().min(1, '请输入计划名称').max(100),
  diseaseCode: z.string().max(50).nullish(),
  remark: z.string().max(500).nullish(),
  visits: z.array(followPlanVisitBodySchema).min(1, '请添加访视').max(100),
});
/** An edit: `reschedule` moves enrolled patients' pending visits to the new plan (done ones never move). */
export const followPlanUpdateBodySchema = followPlanBodySchema.extend({
  id: rowIdSchema,
  reschedule: z.boolean().default(false),
});
/** A plan as the plan dialog sends it: new without an id, edited with one. */
export type FollowPlanBody = z.input<typeof followPlanBodySchema> &
  Partial<Pick<z.input<typeof followPlanUpdateBodySchema>, 'id' | 'reschedule'>>;

export const followPlanListQuerySchema = z.object({
  studyId: rowIdTextSchema,
  planName: z.string().max(100).optional(),
  ...pagingQueryFields,
});

export const followPlanDeleteQuerySchema = z.object({ removePending: flagSchema.optional() });

const followRecordFilterFields = {
  state: csvSchema(
    z.coerce
      .number()
      .int()
      .min(0)
      .max(99)
      .refine((n) => FOLLOW_STATE_CODES.includes(n as never)),
  ).optional(),
  startDate: dateSchema.optional(),
  endDate: dateSchema.optional(),
  responsibleUserId: rowIdTextSchema.optional(),
  subjectId: rowIdTextSchema.optional(),
  subjectRecordId: rowIdTextSchema.optional(),
  planId: rowIdTextSchema.optional(),
  keyword: z.string().max(50).optional(),
};
/** The visit list's filters (by state, date range, responsible person, patient), paged. */
export const followRecordQuerySchema = studyIdQuerySchema.extend({ ...followRecordFilterFields, ...pagingQueryFields });
/** The visit list's filters as the browser sends them: `state` as comma-separated codes. */
export type FollowRecordFilter = Omit<z.output<z.ZodObject<typeof followRecordFilterFields>>, 'state'> & {
  state?: string;
};

export const followRecordStatusBodySchema = z.object({
  followRecordId: rowIdSchema,
  action: z.enum(['lost', 'restore']),
  reason: reasonSchema('请填写原因'),
});
export type FollowRecordStatusBody = z.input<typeof followRecordStatusBodySchema>;

export const followScheduleBodySchema = z.object({ subjectRecordId: rowIdSchema });

export const followDateChangeBodySchema = z.object({
  followRecordId: rowIdSchema,
  plannedDate: dateSchema,
  reason: reasonSchema('请填写修改原因'),
});
export type FollowDateChangeBody = z.input<typeof followDateChangeBodySchema>;

export const followRecordDeleteQuerySchema = z.object({
  followRecordId: rowIdTextSchema,
  reason: reasonSchema('请填写删除原因'),
});

/** An unplanned visit (计划外随访) with its forms. */
export const customVisitBodySchema = z.object({
  subjectRecordId: rowIdSchema,
  visitName: z.string().trim().min(1, '请输入访视名称').max(50),
  plannedDate: dateSchema,
  windowBefore: z.number().int().min(0).max(365).default(0),
  windowAfter: z.number().int().min(0).max(365).default(0),
  crfIds: z.array(rowIdSchema).min(1, '请选择随访表单').max(50),
  responsibleUserId: rowIdSchema.nullish(),
});
export type CustomVisitBody = z.input<typeof customVisitBodySchema>;

export const followRecordIdQuerySchema = z.object({ followRecordId: rowIdTextSchema });
export const followRecordCrfQuerySchema = z.object({ followRecordId: rowIdTextSchema, crfId: rowIdTextSchema });
export const followRecordCrfIdQuerySchema = z.object({ followRecordCrfId: rowIdTextSchema });

// ---- Responses ----

/** A row of the plan list. */
export const followPlanRowSchema = z.strictObject({
  id: z.number(),
  studyId: z.number(),
  planName: z.string(),
  diseaseCode: z.string().nullable(),
  remark: z.string(),
  visitCount: z.number(),
  visitNames: z.array(z.string()),
  /** A production study's plan with an open draft (草稿) of its visits. */
  hasDraft: z.boolean(),
  updateBy: z.string(),
  updateTime: z.string(),
});
export type FollowPlanRow = z.infer<typeof followPlanRowSchema>;

/** A form a visit may hold (the study's CRFs). */
export const followCrfOptionSchema = z.strictObject({ crfId: z.number(), title: z.string() });
export type FollowCrfOption = z.infer<typeof followCrfOptionSchema>;

/** One visit of a stored plan, with its responsible person's name and its forms' titles. */
export const followPlanVisitSchema = z.strictObject({
  id: z.number(),
  visitName: z.string(),
  offset: z.number(),
  unit: offsetUnitSchema,
  windowBefore: z.number(),
  windowAfter: z.number(),
  repeatEvery: z.number().nullable(),
  repeatUntil: z.number().nullable(),
  responsibleUserId: z.number().nullable(),
  responsibleName: z.string().nullable(),
  crfIds: z.array(z.number()),
  crfs: z.array(followCrfOptionSchema),
});
export type FollowPlanVisit = z.infer<typeof followPlanVisitSchema>;

/** GET /api/business/follow/{id}: the plan, how many visits of it wait, and its visits. */
export const followPlanSchema = z.strictObject({
  id: z.number(),
  studyId: z.number(),
  planName: z.string(),
  diseaseCode: z.string().nullable(),
  remark: z.string(),
  pendingRecords: z.number(),
  visits: z.array(followPlanVisitSchema),
});
export type FollowPlan = z.infer<typeof followPlanSchema>;

export const followPlanCreatedSchema = z.strictObject({ id: z.number() });
export const followPlanUpdatedSchema = z.strictObject({ id: z.number(), rescheduledPatients: z.number() });
export const followPlanDeletedSchema = z.strictObject({ removedPending: z.number() });

/** A form of a patient's visit: its record once one was filled. */
export const followRecordCrfSchema = z.strictObject({
  followRecordCrfId: z.number(),
  crfId: z.number(),
  title: z.string(),
  crfDataRecordId: z.number().nullable(),
  submitted: z.boolean(),
});
export type FollowRecordCrf = z.infer<typeof followRecordCrfSchema>;

/** One patient visit (随访记录). */
export const followRecordSchema = z.strictObject({
  followRecordId: z.number(),
  studyId: z.number(),
  subjectId: z.number(),
  subjectRecordId: z.number(),
  identificationCode: z.string(),
  subjectName: z.string(),
  planId: z.number().nullable(),
  planName: z.string(),
  visitName: z.string(),
  plannedDate: z.string(),
  windowStart: z.string(),
  windowEnd: z.string(),
  windowBefore: z.number(),
  windowAfter: z.number(),
  state: z.number(),
  stateName: z.string(),
  markReason: z.string().nullable(),
  completedOn: z.string().nullable(),
  dateModified: z.boolean(),
  custom: z.boolean(),
  responsibleUserId: z.number().nullable(),
  responsibleName: z.string(),
  crfs: z.array(followRecordCrfSchema),
});
export type FollowRecord = z.infer<typeof followRecordSchema>;

/** What a change to one visit answers. */
export const followRecordChangedSchema = z.strictObject({ followRecordId: z.number() });
export const followScheduledSchema = z.strictObject({ changed: z.boolean() });

/** GET /api/business/subject/follow/crfs: a visit's forms, with the visit and its casebook. */
export const followVisitFormSchema = followRecordCrfSchema.extend({
  followRecordId: z.number(),
  subjectRecordId: z.number(),
});
export type FollowVisitForm = z.infer<typeof followVisitFormSchema>;

/** One visit form (by visit and form, or by its id): what the CRF page needs to open it for that visit. */
export const followVisitCrfSchema = z.strictObject({
  followRecordCrfId: z.number(),
  followRecordId: z.number(),
  subjectRecordId: z.number(),
  visitName: z.string(),
  plannedDate: z.string(),
  state: z.number(),
  stateName: z.string(),
  crfId: z.number(),
  title: z.string(),
  crfDataRecordId: z.number().nullable(),
});
export type FollowVisitCrf = z.infer<typeof followVisitCrfSchema>;

/** Counts of judged visits: on time, late, missed (window passed, not done) and lost, with their rates (0..1). */
const followJudgedFields = {
  onTime: z.number(),
  late: z.number(),
  missed: z.number(),
  lost: z.number(),
  judged: z.number(),
  /** Null while no visit is judged. */
  onTimeRate: z.number().nullable(),
  completionRate: z.number().nullable(),
};

export const followOverviewVisitSchema = z.strictObject({
  planId: z.number().nullable(),
  planVisitId: z.number().nullable(),
  planName: z.string(),
  visitName: z.string(),
  /** The study's unplanned visits, counted together. */
  custom: z.boolean(),
  total: z.number(),
  pending: z.number(),
  ...followJudgedFields,
});
export type FollowOverviewVisit = z.infer<typeof followOverviewVisitSchema>;

export const followOverviewPersonSchema = z.strictObject({
  userId: z.number().nullable(),
  name: z.string(),
  weekPending: z.number(),
  due: z.number(),
  overdue: z.number(),
  done: z.number(),
  lost: z.number(),
  total: z.number(),
});
export type FollowOverviewPerson = z.infer<typeof followOverviewPersonSchema>;

/** GET /api/business/follow/overview (随访概览). */
export const followOverviewSchema = z.strictObject({
  today: z.string(),
  weekStart: z.string(),
  weekEnd: z.string(),
  thisWeek: z.strictObject({ total: z.number(), pending: z.number(), done: z.number() }),
  notDue: z.number(),
  due: z.number(),
  overdue: z.number(),
  ...followJudgedFields,
  visits: z.array(followOverviewVisitSchema),
  responsible: z.array(followOverviewPersonSchema),
  weekVisits: z.array(
    followRecordSchema.pick({
      followRecordId: true,
      subjectId: true,
      subjectRecordId: true,
      identificationCode: true,
      subjectName: true,
      visitName: true,
      custom: true,
      plannedDate: true,
      windowStart: true,
      windowEnd: true,
      state: true,
      stateName: true,
      responsibleUserId: true,
      responsibleName: true,
    }),
  ),
});
export type FollowOverview = z.infer<typeof followOverviewSchema>;
