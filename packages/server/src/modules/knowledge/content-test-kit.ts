import { eq } from 'drizzle-orm';
import { users } from '../../db/schema/index.js';
import { addStudyMember } from '../../test/study-member.js';
import type { TestApp } from '../../test/test-app.js';

/** A signed-in user of no study (a plain system role without menus). */
export async function addOutsider(t: TestApp, admin: string, userName: string): Promise<string> {
  const created = await t.call(admin, 'POST', '/api/system/user', {
    userName,
    password: 'Passw0rd',
    name: '外人',
    deptId: 1,
    roleIds: [1],
  });
  const plainRole = await t.call(admin, 'POST', '/api/system/role', {
    roleName: `外人${userName}`,
    roleKey: `outsider${userName}`,
    menuIds: [],
  });
  await t.call(admin, 'PUT', '/api/system/user', {
    userId: created.body.data.userId,
    userName,
    name: '外人',
    deptId: 1,
    roleIds: [plainRole.body.data.roleId],
  });
  await t.db.update(users).set({ setPasswordMust: false }).where(eq(users.userId, created.body.data.userId));
  return (await t.login(userName, 'Passw0rd')).token;
}

export type Caller = 'admin' | 'withKey' | 'withoutKey' | 'outsider' | 'anonymous';

/**
 * The permission matrix's callers for one study: the administrator, a member whose study role holds the keys,
 * a member holding none, a signed-in user of no study, and no sign-in at all.
 */
export async function matrixCallers(t: TestApp, admin: string, studyId: number, keys: string[], prefix: string) {
  const tokens: Record<Caller, string> = {
    admin,
    withKey: await addStudyMember(t, admin, studyId, `${prefix}01`, { permissions: keys }),
    withoutKey: await addStudyMember(t, admin, studyId, `${prefix}02`, { permissions: [] }),
    outsider: await addOutsider(t, admin, `${prefix}03`),
    anonymous: '',
  };
  return tokens;
}

/** One call as a caller (anonymous sends no authorization header); a file answer has a null body. */
export async function callAs(t: TestApp, token: string, method: string, url: string, payload?: unknown) {
  const res = await t.app.inject({
    method: method as 'GET',
    url,
    ...(token ? { headers: { authorization: `Bearer ${token}` } } : {}),
    ...(payload !== undefined ? { payload: payload as object } : {}),
  });
  const json = (res.headers['content-type'] ?? '').toString().startsWith('application/json');
  return {
    status: res.statusCode,
    body: (json ? res.json() : null) as { code: number; msg: string; data: any },
  };
}
