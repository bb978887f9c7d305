import type { Page } from 'playwright-core';
import { ADMIN, INITIAL_PASSWORD } from './harness.js';

/** The administrator's password once the first sign-in has replaced the initial one. */
export const ADMIN_PASSWORD = 'Admin@2024';
export const DEMO_STUDY = '腰椎管狭窄症手术登记研究（示例）';

export interface Envelope<T> {
  code: number;
  msg: string;
  data: T;
}

/** Calls the platform's API as the web does: JSON in, the envelope's data out; any code but 200 is thrown. */
export async function callApi<T>(
  baseUrl: string,
  method: string,
  path: string,
  token: string | null,
  body?: unknown,
): Promise<T> {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const envelope = (await res.json()) as Envelope<T>;
  if (envelope.code !== 200) throw new Error(`${method} ${path}: ${envelope.code} ${envelope.msg}`);
  return envelope.data;
}

export interface SignedIn {
  token: string;
  user: { userId: number };
}

export const loginApi = (baseUrl: string, username: string, password: string) =>
  callApi<SignedIn>(baseUrl, 'POST', '/api/ignore/sys/login', null, { username, password, code: '', uuid: '' });

/**
 * The administrator's first sign-in must replace the initial password (done here by API, as the first
 * browser sign-in would); answers the administrator's token and the demo study's id.
 */
export async function prepareAdmin(
  baseUrl: string,
  password = ADMIN_PASSWORD,
): Promise<{ token: string; studyId: number }> {
  const first = await loginApi(baseUrl, ADMIN, INITIAL_PASSWORD);
  await callApi(baseUrl, 'PUT', '/api/system/user/password', first.token, {
    userId: first.user.userId,
    oldPassword: INITIAL_PASSWORD,
    newPassword: password,
  });
  const { token } = await loginApi(baseUrl, ADMIN, password);
  const studies = await callApi<{ list: Array<{ id: number; studyName: string }> }>(
    baseUrl,
    'GET',
    '/api/business/study/list?pageNum=1&pageSize=50',
    token,
  );
  return { token, studyId: studies.list.find((s) => s.studyName === DEMO_STUDY)!.id };
}

/** Signs in on the login page; waits for `landing` (a URL pattern), or for the top bar when it is null. */
export async function signInAs(
  page: Page,
  userName = ADMIN,
  password = ADMIN_PASSWORD,
  landing: string | null = '**/studyList',
) {
  await page.goto('/login');
  await page.getByPlaceholder('请输入手机号').fill(userName);
  await page.getByPlaceholder('请输入密码').fill(password);
  await page.getByRole('button', { name: '登 录' }).click();
  if (landing) await page.waitForURL(landing);
  else await page.locator('.top-bar').waitFor();
}

export interface Person {
  userName: string;
  name: string;
  password: string;
}

/**
 * Makes `person` staff of a study with only the given study-role permissions (a system role with no menus), and
 * does the first sign-in's password change by API, so the browser signs in with `person.password`.
 */
export async function addStudyMember(
  baseUrl: string,
  adminToken: string,
  studyId: number,
  person: Person,
  permissions: string[],
  /** The member's sites (分中心, departments); their own department when not given. */
  siteIds?: number[],
): Promise<void> {
  const api = <T>(method: string, path: string, token: string, body?: unknown) =>
    callApi<T>(baseUrl, method, path, token, body);
  const initial = 'Start@2024';
  const user = await api<{ userId: number }>('POST', '/api/system/user', adminToken, {
    userName: person.userName,
    password: initial,
    name: person.name,
    deptId: 1,
    roleIds: [1],
  });
  const role = await api<{ roleId: number }>('POST', '/api/system/role', adminToken, {
    roleName: person.name,
    roleKey: `member${person.userName}`,
    menuIds: [],
  });
  await api('PUT', '/api/system/user', adminToken, {
    userId: user.userId,
    userName: person.userName,
    name: person.name,
    deptId: 1,
    roleIds: [role.roleId],
  });
  const studyRole = await api<{ id: number }>('POST', '/api/system/studyRole', adminToken, {
    studyId,
    roleName: person.name,
    permissions,
  });
  await api('POST', '/api/business/study_personnel', adminToken, {
    studyId,
    userIds: [user.userId],
    studyRoleId: studyRole.id,
    ...(siteIds && { siteIds }),
  });
  const first = await loginApi(baseUrl, person.userName, initial);
  await api('PUT', '/api/system/user/password', first.token, {
    userId: first.user.userId,
    oldPassword: initial,
    newPassword: person.password,
  });
}
