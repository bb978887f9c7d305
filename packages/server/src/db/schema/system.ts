import { sql } from 'drizzle-orm';
import {
  bigint,
  bigserial,
  boolean,
  index,
  integer,
  pgTable,
  primaryKey,
  serial,
  smallint,
  text,
  timestamp,
  uniqueIndex,
  varchar,
} from 'drizzle-orm/pg-core';
import { timestamps } from './columns.js';

export const departments = pgTable('departments', {
  deptId: serial('dept_id').primaryKey(),
  parentId: integer('parent_id').notNull().default(0),
  deptName: varchar('dept_name', { length: 50 }).notNull(),
  orderNum: integer('order_num').notNull().default(0),
  leader: varchar('leader', { length: 30 }),
  phone: varchar('phone', { length: 20 }),
  status: smallint('status').notNull().default(0),
  ...timestamps,
});

export const users = pgTable(
  'users',
  {
    userId: serial('user_id').primaryKey(),
    userName: varchar('user_name', { length: 20 }).notNull(),
    passwordHash: text('password_hash').notNull(),
    name: varchar('name', { length: 30 }).notNull(),
    sex: smallint('sex'),
    email: varchar('email', { length: 100 }),
    mobile: varchar('mobile', { length: 20 }),
    deptId: integer('dept_id').references(() => departments.deptId),
    remark: varchar('remark', { length: 60 }),
    status: smallint('status').notNull().default(0),
    home: varchar('home', { length: 100 }),
    setPasswordMust: boolean('set_password_must').notNull().default(false),
    passwordChangedAt: timestamp('password_changed_at', { withTimezone: true }),
    /** 账号有效期: the last day (YYYY-MM-DD, Asia/Shanghai) the account may sign in; null: no end. */
    expiresOn: varchar('expires_on', { length: 10 }),
    // Users are never hard-deleted: audit and operation logs keep pointing at them.
    deletedAt: timestamp('deleted_at', { withTimezone: true }),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('users_user_name_live')
      .on(t.userName)
      .where(sql`${t.deletedAt} is null`),
    index('users_dept').on(t.deptId),
  ],
);

export const roles = pgTable(
  'roles',
  {
    roleId: serial('role_id').primaryKey(),
    roleName: varchar('role_name', { length: 30 }).notNull(),
    roleKey: varchar('role_key', { length: 50 }).notNull(),
    roleSort: integer('role_sort').notNull().default(0),
    status: smallint('status').notNull().default(0),
    remark: varchar('remark', { length: 200 }),
    admin: boolean('is_admin').notNull().default(false),
    ...timestamps,
  },
  (t) => [uniqueIndex('roles_role_key').on(t.roleKey), uniqueIndex('roles_role_name').on(t.roleName)],
);

export const userRoles = pgTable(
  'user_roles',
  {
    userId: integer('user_id')
      .notNull()
      .references(() => users.userId, { onDelete: 'cascade' }),
    roleId: integer('role_id')
      .notNull()
      .references(() => roles.roleId, { onDelete: 'cascade' }),
  },
  (t) => [primaryKey({ columns: [t.userId, t.roleId] }), index('user_roles_role').on(t.roleId)],
);

export const menus = pgTable(
  'menus',
  {
    menuId: serial('menu_id').primaryKey(),
    parentId: integer('parent_id').notNull().default(0),
    type: varchar('type', { length: 1 }).notNull(),
    code: varchar('code', { length: 100 }).notNull(),
    perms: varchar('perms', { length: 100 }),
    path: varchar('path', { length: 200 }),
    level: smallint('level').notNull().default(0),
    orderNum: integer('order_num').notNull().default(0),
    status: smallint('status').notNull().default(0),
    title: varchar('title', { length: 50 }).notNull(),
    icon: varchar('icon', { length: 100 }),
    hidden: boolean('hidden').notNull().default(false),
    ...timestamps,
  },
  (t) => [uniqueIndex('menus_code').on(t.code), index('menus_parent').on(t.parentId)],
);

export const roleMenus = pgTable(
  'role_menus',
  {
    roleId: integer('role_id')
      .notNull()
      .references(() => roles.roleId, { onDelete: 'cascade' }),
    menuId: integer('menu_id')
      .notNull()
      .references(() => menus.menuId, { onDelete: 'cascade' }),
  },
  (t) => [primaryKey({ columns: [t.roleId, t.menuId] }), index('role_menus_menu').on(t.menuId)],
);

export const sessions = pgTable(
  'sessions',
  {
    sessionId: varchar('session_id', { length: 36 }).primaryKey(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.userId),
    refreshHash: varchar('refresh_hash', { length: 64 }).notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
    ip: varchar('ip', { length: 64 }),
    userAgent: varchar('user_agent', { length: 300 }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    /** The last request the user made in this session (idle sign-out). */
    lastActiveAt: timestamp('last_active_at', { withTimezone: true }),
  },
  (t) => [index('sessions_user').on(t.userId), uniqueIndex('sessions_refresh').on(t.refreshHash)],
);

/** Earlier password hashes, newest first by created_at: the last five may not be chosen again. */
export const passwordHistory = pgTable(
  'password_history',
  {
    id: serial('id').primaryKey(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.userId),
    passwordHash: text('password_hash').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('password_history_user').on(t.userId, t.createdAt)],
);

/**
 * One row: a number that grows whenever who may do what could have changed (users, roles, menus, study staff and
 * roles, studies; triggers of migration 0028). A request reads it with its session, and the permissions and study
 * memberships computed for a user are kept per generation (http/auth-cache.ts), so a change takes effect on the
 * next request on every app server, without a notification to wait for.
 */
export const authGeneration = pgTable('auth_generation', {
  id: smallint('id').primaryKey().default(1),
  generation: bigint('generation', { mode: 'number' }).notNull().default(0),
});

export const operLogs = pgTable(
  'oper_logs',
  {
    operId: bigserial('oper_id', { mode: 'number' }).primaryKey(),
    title: varchar('title', { length: 50 }).notNull(),
    businessType: varchar('business_type', { length: 20 }).notNull(),
    method: varchar('method', { length: 200 }).notNull(),
    requestMethod: varchar('request_method', { length: 10 }).notNull(),
    operUserId: integer('oper_user_id'),
    operName: varchar('oper_name', { length: 50 }),
    /** The route's path without its query string: a query can carry names and numbers. */
    operUrl: varchar('oper_url', { length: 500 }).notNull(),
    operIp: varchar('oper_ip', { length: 64 }),
    /** The study the operation acted in, when the route names one (the study's operation page). */
    studyId: integer('study_id'),
    /** Ids of what was acted on (`subjectRecordId=12 crfId=3`), never values. */
    target: varchar('target', { length: 300 }),
    /** The envelope's code of the answer. */
    resultCode: integer('result_code'),
    status: smallint('status').notNull(),
    httpStatus: integer('http_status').notNull(),
    errorMsg: varchar('error_msg', { length: 500 }),
    costTime: integer('cost_time').notNull(),
    requestId: varchar('request_id', { length: 64 }),
    operTime: timestamp('oper_time', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('oper_logs_time').on(t.operTime),
    index('oper_logs_title').on(t.title),
    index('oper_logs_study').on(t.studyId, t.operTime),
  ],
);

export const sysConfigs = pgTable('sys_configs', {
  fieldName: varchar('field_name', { length: 50 }).primaryKey(),
  configKey: varchar('config_key', { length: 50 }).notNull(),
  fieldValue: varchar('field_value', { length: 500 }).notNull(),
  ...timestamps,
});

export const notices = pgTable('notices', {
  noticeId: serial('notice_id').primaryKey(),
  title: varchar('title', { length: 100 }).notNull(),
  content: text('content').notNull().default(''),
  status: smallint('status').notNull().default(0),
  /** Who sees it: 'all' users, the users of one system role, or the staff of one study (docs/content.md). */
  targetType: varchar('target_type', { length: 10 }).notNull().default('all'),
  targetRoleId: integer('target_role_id'),
  /** Not named study_id: notices are a reference table, not distributed by study. */
  targetStudyId: integer('target_study_id'),
  createdBy: integer('created_by'),
  ...timestamps,
});
