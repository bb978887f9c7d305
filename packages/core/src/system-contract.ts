import { z } from 'zod';
import { menuNodeFieldsSchema } from './account.js';
import { MAX_ROW_ID, rowIdSchema, rowIdTextSchema } from './ids.js';
import { pagingQueryFields } from './request-fields.js';

/**
 * The HTTP contract of system administration (系统管理): departments (机构), roles, menus, users and the system
 * settings. Requests as the server validates them, answers as the browser reads them. The user's own bodies
 * (create, update, passwords) and what signing in answers are in account.ts.
 */

const statusSchema = z.union([z.literal(0), z.literal(1)]);
const statusFilter = z.coerce.number().int().min(0).max(1).optional();
const orderNumSchema = z.number().int().min(0).max(9999);
const parentIdSchema = z.number().int().min(0).max(MAX_ROW_ID);

// ---- Requests ----

export const sysConfigQuerySchema = z.object({ key: z.string().trim().toLowerCase().default('systemtitle') });

export const deptListQuerySchema = z.object({ deptName: z.string().optional(), status: statusFilter });
export const deptCreateBodySchema = z.object({
  parentId: parentIdSchema.default(0),
  deptName: z.string({ error: '请输入机构名称' }).trim().min(1, '请输入机构名称').max(50, '机构名称不可超过50字符'),
  orderNum: orderNumSchema.default(0),
  leader: z.string().trim().max(30).nullish(),
  phone: z.string().trim().max(20).nullish(),
  status: statusSchema.default(0),
});
export type DeptCreateBody = z.input<typeof deptCreateBodySchema>;
export const deptUpdateBodySchema = deptCreateBodySchema.extend({ deptId: rowIdSchema });
export type DeptUpdateBody = z.input<typeof deptUpdateBodySchema>;

export const menuListQuerySchema = z.object({ menuName: z.string().optional(), status: statusFilter });
export const menuCreateBodySchema = z.object({
  parentId: parentIdSchema.default(0),
  type: z.enum(['M', 'C', 'F'], { error: '请选择菜单类型' }),
  code: z.string({ error: '请输入菜单编码' }).trim().min(1, '请输入菜单编码').max(100),
  perms: z.string().trim().max(100).nullish(),
  path: z.string().trim().max(200).nullish(),
  level: z.union([z.literal(0), z.literal(1)]).default(0),
  orderNum: orderNumSchema.default(0),
  status: statusSchema.default(0),
  title: z.string({ error: '请输入菜单名称' }).trim().min(1, '请输入菜单名称').max(50),
  icon: z.string().trim().max(100).nullish(),
  hidden: z.boolean().default(false),
});
export type MenuCreateBody = z.input<typeof menuCreateBodySchema>;
export const menuUpdateBodySchema = menuCreateBodySchema.extend({ menuId: rowIdSchema });
export type MenuUpdateBody = z.input<typeof menuUpdateBodySchema>;

export const roleListQuerySchema = z.object({
  ...pagingQueryFields,
  roleName: z.string().trim().optional(),
  status: statusFilter,
});
export const roleCreateBodySchema = z.object({
  roleName: z.string({ error: '请输入角色名称' }).trim().min(1, '请输入角色名称').max(30, '角色名称不可超过30字符'),
  roleKey: z
    .string({ error: '请输入权限字符' })
    .trim()
    .min(1, '请输入权限字符')
    .max(50)
    .regex(/^[A-Za-z][\w:.-]*$/, '权限字符只能包含字母、数字和 _ : . -，且以字母开头'),
  roleSort: orderNumSchema.default(0),
  status: statusSchema.default(0),
  remark: z.string().max(200).nullish(),
  menuIds: z.array(rowIdSchema).max(2000).default([]),
});
export type RoleCreateBody = z.input<typeof roleCreateBodySchema>;
export const roleUpdateBodySchema = roleCreateBodySchema.extend({ roleId: rowIdSchema });
export type RoleUpdateBody = z.input<typeof roleUpdateBodySchema>;
export const roleIdQuerySchema = z.object({ roleId: rowIdTextSchema });
export const roleStatusBodySchema = z.object({ roleId: rowIdSchema, status: statusSchema });

/** The user list's filters, as the server reads them. */
export const userListFilterSchema = z.object({
  name: z.string().trim().optional(),
  userName: z.string().trim().optional(),
  deptId: rowIdTextSchema.optional(),
  status: statusFilter,
});
export type UserListFilter = z.infer<typeof userListFilterSchema>;
export const userListQuerySchema = userListFilterSchema.extend(pagingQueryFields);
export const userIdQuerySchema = z.object({ userId: rowIdTextSchema });
export const userStatusBodySchema = z.object({ userId: rowIdSchema, status: statusSchema });
/** 设置首页: the home route code in the query, the users' ids as the body. */
export const userHomeQuerySchema = z.object({ perm: z.string().trim().min(1, '请选择首页').max(100) });
export const userHomeBodySchema = z.array(rowIdSchema).max(1000);

/** 通知公告管理's list: all notices, by title. */
export const noticeManageListQuerySchema = z.object({
  title: z.string().trim().max(100).optional(),
  ...pagingQueryFields,
});
export type NoticeManageListQuery = z.output<typeof noticeManageListQuerySchema>;

// ---- Responses ----

/** One field of a system setting (SystemTitle, Version, …). */
export const sysConfigFieldSchema = z.strictObject({ fieldName: z.string(), fieldValue: z.string() });
export type SysConfigField = z.infer<typeof sysConfigFieldSchema>;

/**
 * A department as the list answers it (flat: `parentId` makes the tree). `children` is never sent: the pages put
 * the tree together from the list.
 */
export const deptSchema = z.object({
  deptId: z.number(),
  parentId: z.number(),
  deptName: z.string(),
  orderNum: z.number(),
  leader: z.string().nullable(),
  phone: z.string().nullable(),
  status: statusSchema,
  createTime: z.string(),
  get children(): z.ZodOptional<z.ZodArray<typeof deptSchema>> {
    return z.array(deptSchema).optional();
  },
});
export type Dept = z.infer<typeof deptSchema>;

/** A department as the site pickers read it (the same list). */
export const siteRowSchema = z.object({
  deptId: z.number(),
  parentId: z.number(),
  deptName: z.string(),
  orderNum: z.number(),
});
export type SiteRow = z.infer<typeof siteRowSchema>;

export const roleSchema = z.object({
  roleId: z.number(),
  roleName: z.string(),
  roleKey: z.string(),
  roleSort: z.number(),
  status: statusSchema,
  remark: z.string().nullable(),
  /** The administrator role holds every menu and cannot be deleted. */
  admin: z.boolean(),
  createTime: z.string(),
  /** Answered by the role's own page (GET /api/system/role/:id), not by the list. */
  menuIds: z.array(z.number()).optional(),
});
export type Role = z.infer<typeof roleSchema>;

/** A node of the menu tree the role dialog checks. */
export const treeOptionSchema = z.object({
  id: z.number(),
  label: z.string(),
  parentId: z.number().optional(),
  get children(): z.ZodOptional<z.ZodArray<typeof treeOptionSchema>> {
    return z.array(treeOptionSchema).optional();
  },
});
export type TreeOption = z.infer<typeof treeOptionSchema>;

export const roleMenuTreeSchema = z.strictObject({
  menus: z.array(treeOptionSchema),
  checkedKeys: z.array(z.number()),
});
export type RoleMenuTree = z.infer<typeof roleMenuTreeSchema>;

/**
 * A row of GET /api/system/menu/list: the menu node's fields, and its title, icon and hidden flag at the top level
 * for the dialog. The list is flat (`children` empty); the page puts the tree together.
 */
export const menuRowSchema = menuNodeFieldsSchema.extend({
  status: statusSchema,
  title: z.string(),
  icon: z.string().nullable(),
  hidden: z.boolean(),
  createTime: z.string(),
  get children(): z.ZodOptional<z.ZodArray<typeof menuRowSchema>> {
    return z.array(menuRowSchema).optional();
  },
});
export type MenuRow = z.infer<typeof menuRowSchema>;

/** A user created: the new user's id. */
export const userCreatedSchema = z.strictObject({ userId: z.number() });
/** A role created: the new role's id. */
export const roleCreatedSchema = z.strictObject({ roleId: z.number() });
