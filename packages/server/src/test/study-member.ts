import { eq } from 'drizzle-orm';
import { users } from '../db/schema/index.js';
import type { TestApp } from './test-app.js';

/** What the member's study role is: permission keys for a new role, or an existing role's id. */
export type MemberRole = { permissions: string[] } | { studyRoleId: number };

/**
 * A user who is staff of one study and nothing else: the system role holds only the given menus
 * (none by default, so no study:manage), and the study role decides what the user may do there.
 * Answers the member's access token.
 */
export async function addStudyMember(
  t: TestApp,
  adminToken: string,
  studyId: number,
  userName: string,
  role: MemberRole,
  menuIds: number[] = [],
): Promise<string> {
  const name = `成员${userName.slice(-3)}`;
  const user = await t.call(adminToken, 'POST', '/api/system/user', {
    userName,
    password: 'Passw0rd',
    name,
    deptId: 1,
    roleIds: [1],
  });
  const userId = user.body.data.userId as number;
  const systemRole = await t.call(adminToken, 'POST', '/api/system/role', {
    roleName: `普通${userName}`,
    roleKey: `plain${userName}`,
    menuIds,
  });
  await t.call(adminToken, 'PUT', '/api/system/user', {
    userId,
    userName,
    name,
    deptId: 1,
    roleIds: [systemRole.body.data.roleId],
  });
  await t.db.update(users).set({ setPasswordMust: false }).where(eq(users.userId, userId));
  const studyRoleId =
    'studyRoleId' in role
      ? role.studyRoleId
      : (
          await t.call(adminToken, 'POST', '/api/system/studyRole', {
            studyId,
            roleName: `角色${userName}`,
            permissions: role.permissions,
          })
        ).body.data.id;
  const added = await t.call(adminToken, 'POST', '/api/business/study_personnel', {
    studyId,
    userIds: [userId],
    studyRoleId,
  });
  if (added.status !== 200) {
    throw new Error(`adding ${userName} to study ${studyId} failed: ${JSON.stringify(added.body)}`);
  }
  return (await t.login(userName, 'Passw0rd')).token;
}
