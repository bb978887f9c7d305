import { z } from 'zod';
import { rowIdSchema, rowIdTextSchema } from '../ids.js';
import { followPlanVisitBodySchema, followPlanVisitSchema } from './contract.js';
import type { FollowPlanImpact, FollowVisitChange, FollowVisitStay } from './plan-impact.js';

/**
 * The HTTP contract of a production study's follow-up plan draft (草稿, issue 36): the proposed visits kept beside
 * the plan, the impact of publishing them on existing patients' visits, and publishing them as an amendment.
 */

/** `?studyId&planId`: the draft of one plan. */
export const followDraftQuerySchema = z.object({ studyId: rowIdTextSchema, planId: rowIdTextSchema });

/** PUT: the proposed visits, as the plan PUT takes them (kept visits with their id, new ones without). */
export const followDraftBodySchema = z.object({
  studyId: rowIdSchema,
  planId: rowIdSchema,
  visits: z.array(followPlanVisitBodySchema).min(1, '请添加访视').max(100),
});
export type FollowDraftBody = z.input<typeof followDraftBodySchema>;

export const followDraftPublishBodySchema = z.object({
  studyId: rowIdSchema,
  planId: rowIdSchema,
  name: z.string({ error: '请输入修订名称' }).trim().min(1, '请输入修订名称').max(200),
});
export type FollowDraftPublishBody = z.input<typeof followDraftPublishBodySchema>;

/** GET: the open draft (null when none): its visits as the plan detail shows them, a new visit with a null id. */
export const followDraftSchema = z.strictObject({
  planId: z.number(),
  visits: z.array(followPlanVisitSchema.extend({ id: z.number().nullable() })),
  updatedAt: z.string(),
  updatedByName: z.string(),
});
export type FollowDraft = z.infer<typeof followDraftSchema>;

/** Who a row of the impact is about, as the impact page lists patients. */
export interface FollowImpactPatientFields {
  subjectRecordId: number;
  identificationCode: string;
  siteName: string;
  /** A test patient (subjects.test) of the production study. */
  test: boolean;
}

/** GET /api/business/follow/draft/impact. */
export type FollowDraftImpact = Omit<FollowPlanImpact, 'move' | 'stay'> & {
  planId: number;
  today: string;
  move: (FollowVisitChange & FollowImpactPatientFields)[];
  stay: (FollowVisitStay & FollowImpactPatientFields)[];
};

/** The amendment's report of a published plan draft: counts only, never a patient's values. */
export type FollowAmendmentReport = FollowPlanImpact['counts'] & {
  planVisits: { added: number; removed: number; changed: number };
};
