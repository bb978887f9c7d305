import { z } from 'zod';
import { MSG } from './messages.js';
import { MAX_ROW_ID, rowIdSchema } from './ids.js';
import type { MenuNode } from './menu.js';
import { expiresOnSchema } from './account-policy.js';

/** platform §9: password 6 to under 20 characters; remark at most 60. */
export const PASSWORD_MIN = 6;
export const PASSWORD_MAX_EXCLUSIVE = 20;
export const REMARK_MAX = 60;

/** Mainland mobile number: 11 digits, first 1, second 3-9 (platform §5, forms §5). */
export const MOBILE_PATTERN = /^1[3-9]\d{9}$/;

/**
 * A mobile number as typed: the country code (`+86`, `0086`, `86 `) and spaces or hyphens between
 * digit groups are dropped, so `+86 138-0000-0002` is stored and checked as `13800000002`.
 * Anything that does not reduce to 11 digits is returned as typed (and then refused).
 */
export function normalizeMobile(value: string): string {
  const compact = value.trim().replace(/[\s-]/g, '');
  const national = compact.replace(/^(\+86|0086|86)(?=1\d{10}$)/, '');
  return /^\d{11}$/.test(national) ? national : value.trim();
}

export function isMobile(value: string): boolean {
  return MOBILE_PATTERN.test(normalizeMobile(value));
}

/** The first broken length rule of a password, or null when its length is allowed. */
export function passwordLengthError(password: string): string | null {
  if (password.length < PASSWORD_MIN) return MSG.passwordTooShort;
  if (password.length >= PASSWORD_MAX_EXCLUSIVE) return MSG.passwordTooLong;
  return null;
}

export const passwordSchema = z
  .string({ error: MSG.passwordRequired })
  .min(1, MSG.passwordRequired)
  .min(PASSWORD_MIN, MSG.passwordTooShort)
  .max(PASSWORD_MAX_EXCLUSIVE - 1, MSG.passwordTooLong);

export const userNameSchema = z
  .string({ error: MSG.userNameRequired })
  .trim()
  .min(1, MSG.userNameRequired)
  .regex(MOBILE_PATTERN, MSG.userNameMobile);

export const remarkSchema = z.string().max(REMARK_MAX, MSG.remarkTooLong);

export const SEX = { male: 0, female: 1 } as const;
export const STATUS = { normal: 0, disabled: 1 } as const;

const userFields = {
  userName: userNameSchema,
  name: z.string({ error: MSG.nameRequired }).trim().min(1, MSG.nameRequired).max(30),
  sex: z.union([z.literal(0), z.literal(1)]).nullish(),
  email: z.union([z.email(), z.literal('')]).nullish(),
  mobile: z.union([z.string().regex(MOBILE_PATTERN, MSG.userNameMobile), z.literal('')]).nullish(),
  deptId: z.number({ error: MSG.deptRequired }).int().positive(MSG.deptRequired).max(MAX_ROW_ID),
  roleIds: z.array(rowIdSchema, { error: MSG.rolesRequired }).min(1, MSG.rolesRequired),
  remark: remarkSchema.nullish(),
  status: z.union([z.literal(0), z.literal(1)]).default(0),
  /** 账号有效期: the last day the account may sign in (Asia/Shanghai); null none; omitted on an edit: unchanged. */
  expiresOn: expiresOnSchema,
};

export const userCreateSchema = z.object({ ...userFields, password: passwordSchema });
export const userUpdateSchema = z.object({ ...userFields, userId: rowIdSchema });
export type UserCreate = z.infer<typeof userCreateSchema>;
export type UserUpdate = z.infer<typeof userUpdateSchema>;
/** What the user dialog sends (before the server's defaults). */
export type UserCreateBody = z.input<typeof userCreateSchema>;
export type UserUpdateBody = z.input<typeof userUpdateSchema>;

export const passwordChangeSchema = z
  .object({
    userId: rowIdSchema.optional(),
    oldPassword: z.string({ error: MSG.oldPasswordRequired }).min(1, MSG.oldPasswordRequired),
    newPassword: passwordSchema,
  })
  .refine((v) => v.oldPassword !== v.newPassword, { message: MSG.passwordSameAsOld, path: ['newPassword'] });

export const passwordResetSchema = z.object({
  userId: rowIdSchema,
  newPassword: passwordSchema,
});

// ---- Signing in: the HTTP contract, requests as the server validates them and answers as the browser reads them ----

export const loginBodySchema = z.object({
  username: z.string({ error: '请输入用户名' }).min(1, '请输入用户名').max(50),
  password: z.string({ error: '请输入密码' }).min(1, '请输入密码').max(100),
  code: z.string().max(20).optional(),
  uuid: z.string().max(64).optional(),
});
export type LoginBody = z.input<typeof loginBodySchema>;
export const refreshBodySchema = z.object({ refreshToken: z.string().min(1).max(200) });
export const logoutBodySchema = z.object({ refreshToken: z.string().max(200).optional() }).optional();

/** Without a captcha (switched off) `uuid` and `img` are empty. */
export const captchaSchema = z.strictObject({ captchaEnabled: z.boolean(), uuid: z.string(), img: z.string() });
export type Captcha = z.infer<typeof captchaSchema>;

/**
 * A user as the user pages and the signed-in profile answer it (docs/api.md `user`). The profile (sign-in, getInfo)
 * has no createTime, roleIds or roleNames; the user list and page have them all.
 */
export const sysUserSchema = z.object({
  userId: z.number(),
  userName: z.string(),
  name: z.string(),
  /** 0 男, 1 女 (SEX). */
  sex: z.union([z.literal(0), z.literal(1)]).nullable(),
  email: z.string().nullable(),
  mobile: z.string().nullable(),
  deptId: z.number().nullable(),
  deptName: z.string().nullable().optional(),
  remark: z.string().nullable(),
  /** 0 正常, 1 停用 (STATUS). */
  status: z.union([z.literal(0), z.literal(1)]),
  home: z.string().nullable().optional(),
  setPasswordMust: z.boolean().optional(),
  /** 账号有效期 (YYYY-MM-DD) or null; the user list and page answer it. */
  expiresOn: z.string().nullable().optional(),
  roleIds: z.array(z.number()).optional(),
  roleNames: z.array(z.string()).optional(),
  createTime: z.string().optional(),
});
export type SysUser = z.infer<typeof sysUserSchema>;

/** A new access token with its refresh token (sign-in and refresh). */
export const tokenPairSchema = z.object({ token: z.string(), refreshToken: z.string(), expiresIn: z.number() });
export type TokenPair = z.infer<typeof tokenPairSchema>;

export const loginResultSchema = tokenPairSchema.extend({ setPasswordMust: z.boolean(), user: sysUserSchema });
export type LoginResult = z.infer<typeof loginResultSchema>;

/** GET /api/sys/login/getInfo: the user, their role keys and names, and every permission code they hold. */
export const userInfoSchema = z.object({
  user: sysUserSchema,
  roles: z.array(z.string()),
  roleNames: z.array(z.string()).optional(),
  permissions: z.array(z.string()),
  /** 无操作自动退出 (系统设置): the web's idle timer signs out after this many minutes without input. */
  idleTimeoutMinutes: z.number().optional(),
});
export type UserInfo = z.infer<typeof userInfoSchema>;

/**
 * A menu node's own fields, as the shell's tree (getRouters) and the menu list (system-contract's menuRowSchema)
 * both answer them. Each adds its `children` with `.extend` and a getter: spreading a shape would run the getter.
 */
export const menuNodeFieldsSchema = z.object({
  menuId: z.number(),
  parentId: z.number(),
  type: z.enum(['M', 'C', 'F']),
  code: z.string(),
  perms: z.string().nullable(),
  path: z.string().nullable(),
  level: z.union([z.literal(0), z.literal(1)]),
  orderNum: z.number(),
  status: z.number(),
  meta: z.object({ title: z.string(), icon: z.string().nullable(), hidden: z.boolean() }),
});

/** A node of GET /api/sys/login/getRouters: the shell's menus the user may see, as a tree. */
export const menuNodeSchema: z.ZodType<MenuNode> = menuNodeFieldsSchema.extend({
  get children() {
    return z.array(menuNodeSchema);
  },
});
