import { and, eq, isNull } from 'drizzle-orm';
import type { AppContext } from '../../app-context.js';
import { dataChangeInfos, studyPersonnel, users } from '../../db/schema/index.js';
import type { CurrentUser } from '../../shared/current-user.js';

/**
 * POST /api/v1/base/other/addsysdatachangeinfo (SHELL-32): a client says which data scopes it changed (the app
 * state's dataSyncScope, comma-separated); the change is recorded and every other open client that may hold those
 * scopes is told through the realtime hubs (eventhub `data.changed`), and reads them again under its own rights.
 * A scope is a name, never a value: the push carries names and ids only.
 */
export async function addDataChange(
  ctx: AppContext,
  user: CurrentUser,
  scopes: string[],
  studyId: number | null,
): Promise<{ id: number; scopes: string[] }> {
  const [row] = await ctx.db
    .insert(dataChangeInfos)
    .values({ studyId, scope: scopes.join(','), userId: user.userId, createdAt: ctx.clock() })
    .returning({ id: dataChangeInfos.id });
  const readers = new Set<number>();
  if (studyId === null) {
    const rows = await ctx.db
      .select({ userId: users.userId })
      .from(users)
      .where(and(isNull(users.deletedAt), eq(users.status, 0)));
    for (const r of rows) readers.add(r.userId);
  } else {
    const rows = await ctx.db
      .select({ userId: studyPersonnel.userId })
      .from(studyPersonnel)
      .where(eq(studyPersonnel.studyId, studyId));
    for (const r of rows) readers.add(r.userId);
    // study:manage holders watching the study without being its staff.
    for (const userId of await ctx.realtime.watchers(studyId)) readers.add(userId);
  }
  for (const userId of readers) ctx.realtime.toUser(userId, 'data.changed', { studyId, scopes, by: user.userId });
  return { id: row!.id, scopes };
}
