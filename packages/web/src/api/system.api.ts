import type { MenuType, Page } from '@ecrf/core';
import type { SysUser } from './auth.api';
import { http } from './request';

export interface Dept {
  deptId: number;
  parentId: number;
  deptName: string;
  orderNum: number | null;
  leader: string | null;
  phone: string | null;
  status: number;
  createTime?: string;
  children?: Dept[];
}

export type DeptBody = Omit<Dept, 'deptId' | 'createTime' | 'children'> & { deptId?: number };

export interface Role {
  roleId: number;
  roleName: string;
  roleKey: string;
  roleSort: number | null;
  status: number;
  remark: string | null;
  admin?: boolean;
  createTime?: string;
  menuIds?: number[];
}

export interface RoleBody {
  roleId?: number;
  roleName: string;
  roleKey: string;
  roleSort?: number | null;
  status?: number;
  remark?: string | null;
  menuIds: number[];
}

export interface TreeOption {
  id: number;
  label: string;
  children?: TreeOption[];
}

/** A row of GET /api/system/menu/list: node fields without children (docs/api.md). */
export interface MenuRow {
  menuId: number;
  parentId: number;
  type: MenuType;
  code: string;
  perms: string | null;
  path: string | null;
  level: 0 | 1;
  orderNum: number | null;
  status: number;
  meta?: { title: string; icon: string | null; hidden: boolean };
  title?: string;
  icon?: string | null;
  hidden?: boolean;
  children?: MenuRow[];
}

export interface MenuBody {
  menuId?: number;
  parentId: number;
  type: MenuType;
  code: string;
  perms?: string | null;
  path?: string | null;
  level: 0 | 1;
  orderNum?: number | null;
  status?: number;
  title: string;
  icon?: string | null;
  hidden?: boolean;
}

export interface UserBody {
  userId?: number;
  userName: string;
  password?: string;
  name: string;
  sex?: number | null;
  email?: string | null;
  mobile?: string | null;
  deptId: number;
  roleIds: number[];
  remark?: string | null;
  status?: number;
}

export interface UserQuery {
  pageNum: number;
  pageSize: number;
  name?: string;
  userName?: string;
  deptId?: number;
  status?: number;
}

export interface PageQuery {
  pageNum: number;
  pageSize: number;
}

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
  add: (body: RoleBody) => http.post<Role>('/api/system/role', body),
  update: (body: RoleBody) => http.put<Role>('/api/system/role', body),
  remove: (roleId: number) => http.delete<null>('/api/system/role', { params: { roleId } }),
  changeStatus: (roleId: number, status: number) => http.put<null>('/api/system/role/status', { roleId, status }),
};

export const menuApi = {
  list: (params?: { menuName?: string; status?: number }) => http.get<MenuRow[]>('/api/system/menu/list', { params }),
  get: (menuId: number) => http.get<MenuRow>(`/api/system/menu/${menuId}`),
  treeselect: () => http.get<TreeOption[]>('/api/system/menu/treeselect'),
  roleMenuTreeselect: (roleId: number) =>
    http.get<{ menus: TreeOption[]; checkedKeys: number[] }>(`/api/system/menu/roleMenuTreeselect/${roleId}`),
  add: (body: MenuBody) => http.post<MenuRow>('/api/system/menu', body),
  update: (body: MenuBody) => http.put<MenuRow>('/api/system/menu', body),
  remove: (menuId: number) => http.delete<null>(`/api/system/menu/${menuId}`),
};

export const userApi = {
  list: (params: UserQuery) => http.get<Page<SysUser>>('/api/system/users', { params }),
  get: (userId: number) => http.get<SysUser>('/api/system/user', { params: { userId } }),
  /** The user dialog reports the outcome itself: the server text as success or as error (platform §8). */
  add: (body: UserBody) => http.post<SysUser>('/api/system/user', body, { silent: true }),
  update: (body: UserBody) => http.put<SysUser>('/api/system/user', body, { silent: true }),
  remove: (userId: number) => http.delete<null>('/api/system/user', { params: { userId } }),
  changeStatus: (userId: number, status: number) => http.put<null>('/api/system/user/status', { userId, status }),
  /** platform §7: the home route code in `perm`, the user ids as the body. */
  setHome: (perm: string, userIds: number[]) =>
    http.post<null>('/api/v1/SysUser/setHome', userIds, { params: { perm } }),
};
