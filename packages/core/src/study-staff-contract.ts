import { z } from 'zod';
import { MAX_ROW_ID, rowIdSchema } from './ids.js';
import { pagingQueryFields, studyIdQuerySchema } from './request-fields.js';

/** The HTTP contract of a study's roles (项目角色) and staff (项目人员): requests as validated, answers as read. */

// ---- Requests ----

const studyRoleFields = {
  roleName: z.string({ error: '请输入角色名称' }).trim().min(1, '请输入角色名称').max(50),
  remark: z.string().max(200).nullish(),
  permissions: z.array(z.string().max(100)).max(5000).default([]),
};
export const studyRoleCreateBodySchema = z.object({ studyId: rowIdSchema, ...studyRoleFields });
export type StudyRoleCreateBody = z.input<typeof studyRoleCreateBodySchema>;
export const studyRoleUpdateBodySchema = z.object({ id: rowIdSchema, ...studyRoleFields });
export type StudyRoleUpdateBody = z.input<typeof studyRoleUpdateBodySchema>;

const siteIdsSchema = z.array(rowIdSchema).max(50).optional();

export const personnelListQuerySchema = studyIdQuerySchema.extend({
  ...pagingQueryFields,
  name: z.string().trim().optional(),
});
export const personnelCandidatesQuerySchema = studyIdQuerySchema.extend({ name: z.string().trim().optional() });
export const personnelAddBodySchema = z.object({
  studyId: rowIdSchema,
  userIds: z.array(rowIdSchema, { error: '请选择用户' }).min(1, '请选择用户').max(500),
  studyRoleId: z.number({ error: '请选择项目角色' }).int().positive().max(MAX_ROW_ID),
  deptId: rowIdSchema.nullish(),
  /** The member's sites (分中心); the first is their department. docs/multi-centre.md. */
  siteIds: siteIdsSchema,
});
export type PersonnelAddBody = z.input<typeof personnelAddBodySchema>;
export const personnelUpdateBodySchema = z.object({
  id: rowIdSchema,
  studyRoleId: rowIdSchema,
  deptId: rowIdSchema.nullish(),
  siteIds: siteIdsSchema,
});
export type PersonnelUpdateBody = z.input<typeof personnelUpdateBodySchema>;

// ---- Responses ----

/** A node of GET /api/system/studyRole/tree: the study's buttons, then every CRF with its actions. */
export const permissionNodeSchema = z.strictObject({
  key: z.string(),
  title: z.string(),
  get children(): z.ZodOptional<z.ZodArray<typeof permissionNodeSchema>> {
    return z.array(permissionNodeSchema).optional();
  },
});
export type PermissionNode = z.infer<typeof permissionNodeSchema>;

/** A study role as its page and its writes answer it. */
export const studyRoleDetailSchema = z.strictObject({
  id: z.number(),
  studyId: z.number(),
  roleName: z.string(),
  remark: z.string().nullable(),
  permissions: z.array(z.string()),
  createTime: z.string(),
});
export type StudyRoleDetail = z.infer<typeof studyRoleDetailSchema>;

/** A row of the study's role list: the role and how many members hold it. */
export const studyRoleSchema = studyRoleDetailSchema.extend({ memberCount: z.number() });
export type StudyRole = z.infer<typeof studyRoleSchema>;

export const studyMemberSchema = z.strictObject({
  id: z.number(),
  studyId: z.number(),
  userId: z.number(),
  userName: z.string(),
  name: z.string(),
  deptId: z.number().nullable(),
  deptName: z.string().nullable(),
  /** The member's sites (分中心): their patients are the ones they see without 查看全部中心数据. */
  siteIds: z.array(z.number()),
  siteNames: z.array(z.string()),
  studyRoleId: z.number(),
  roleName: z.string(),
  createTime: z.string(),
});
export type StudyMember = z.infer<typeof studyMemberSchema>;

/** A user who is not yet a member of the study. */
export const candidateUserSchema = z.strictObject({
  userId: z.number(),
  userName: z.string(),
  name: z.string(),
  deptId: z.number().nullable(),
  deptName: z.string().nullable(),
});
export type CandidateUser = z.infer<typeof candidateUserSchema>;
