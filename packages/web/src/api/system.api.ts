import type {
  Dept,
  DeptCreateBody,
  DeptUpdateBody,
  MenuCreateBody,
  MenuRow,
  MenuUpdateBody,
  Page,
  Role,
  RoleCreateBody,
  RoleMenuTree,
  RoleUpdateBody,
  SysUser,
  TreeOption,
  UserCreateBody,
  UserListFilter,
  UserUpdateBody,
} from '@ecrf/core';
import { http } from './request';

/** The shapes of these calls are core's contract (system-contract.ts, account.ts); named here as pages import them. */
export type { Dept, MenuRow, Role, TreeOption } from '@ecrf/core';

/** What a dialog sends: a new row's fields, with the row's id when it edits one. */
export type DeptBody = DeptCreateBody & Partial<Pick<DeptUpdateBody, 'deptId'>>;
export type MenuBody = MenuCreateBody & Partial<Pick<MenuUpdateBody, 'menuId'>>;
export type RoleBody = RoleCreateBody & Partial<Pick<RoleUpdateBody, 'roleId'>>;

/** The user dialog's fields: a new user's (with a password) or an edit's (with the user's id). */
export type UserBody = Omit<UserCreateBody, 'password'> &
  Partial<Pick<UserCreateBody, 'password'>> &
  Partial<Pick<UserUpdateBody, 'userId'>>;

export interface PageQuery {
  pageNum: number;
  pageSize: number;
}

export type UserQuery = PageQuery & UserListFilter;

export const deptApi = {
  list: (params?: { deptName?: string; status?: number }) => http.get<Dept[]>('/api/system/dept/list', { params }),
  get: (deptId: number) => http.get<Dept>(`/api/system/dept/${deptId}`),
  add: (body: DeptBody) => http.post<Dept>('/api/system/dept', body),
  update: (body: DeptBody) => http.put<Dept>('/api/system/dept', body),
  remove: (deptId: number) => http.delete<null>(`/api/system/dept/${deptId}`),
};

export const roleApi = {
  list: (params: PageQuery & { roleName?: string; status?: number }) =>
    http.get<Page<Role>>('/api/system/role/list', { params }),
  get: (roleId: number) => http.get<Role>(`/api/system/role/${roleId}`),
  add: (body: RoleBody) => http.post<{ roleId: number }>('/api/system/role', body),
  update: (body: RoleBody) => http.put<null>('/api/system/role', body),
  remove: (roleId: number) => http.delete<null>('/api/system/role', { params: { roleId } }),
  changeStatus: (roleId: number, status: number) => http.put<null>('/api/system/role/status', { roleId, status }),
};

export const menuApi = {
  list: (params?: { menuName?: string; status?: number }) => http.get<MenuRow[]>('/api/system/menu/list', { params }),
  get: (menuId: number) => http.get<MenuRow>(`/api/system/menu/${menuId}`),
  treeselect: () => http.get<TreeOption[]>('/api/system/menu/treeselect'),
  roleMenuTreeselect: (roleId: number) => http.get<RoleMenuTree>(`/api/system/menu/roleMenuTreeselect/${roleId}`),
  add: (body: MenuBody) => http.post<MenuRow>('/api/system/menu', body),
  update: (body: MenuBody) => http.put<MenuRow>('/api/system/menu', body),
  remove: (menuId: number) => http.delete<null>(`/api/system/menu/${menuId}`),
};

export const userApi = {
  list: (params: UserQuery) => http.get<Page<SysUser>>('/api/system/users', { params }),
  get: (userId: number) => http.get<SysUser>('/api/system/user', { params: { userId } }),
  /** The user dialog reports the outcome itself: the server text as success or as error (platform §8). */
  add: (body: UserBody) => http.post<{ userId: number }>('/api/system/user', body, { silent: true }),
  update: (body: UserBody) => http.put<null>('/api/system/user', body, { silent: true }),
  remove: (userId: number) => http.delete<null>('/api/system/user', { params: { userId } }),
  changeStatus: (userId: number, status: number) => http.put<null>('/api/system/user/status', { userId, status }),
  /** platform §7: the home route code in `perm`, the user ids as the body. */
  setHome: (perm: string, userIds: number[]) =>
    http.post<null>('/api/v1/SysUser/setHome', userIds, { params: { perm } }),
};
