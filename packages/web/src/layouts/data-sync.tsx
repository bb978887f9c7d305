import { useEffect } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { globalSearchApi } from '../api/global-search.api';
import { useRealtimeEvent } from '../realtime/realtime-events';
import { useAppStore } from '../stores/app.store';
import { useSession } from '../stores/session.store';

/**
 * The app state's dataSyncScope (SHELL-30, SHELL-32): scopes a page puts there are posted with
 * addsysdatachangeinfo and cleared; a `data.changed` push from another client reads those scopes again here. A
 * scope is the root of the web app's query keys (for example `subjectRecord`, `notices`, `consult`), so any
 * page's data can be named without a table of its own.
 */
export function DataSync() {
  const client = useQueryClient();
  const scopes = useAppStore((s) => s.dataSyncScope);
  const setScopes = useAppStore((s) => s.setDataSyncScope);
  const studyId = useAppStore((s) => s.studyId);
  const me = useSession((s) => s.user?.userId ?? null);

  useEffect(() => {
    if (scopes.length === 0) return;
    setScopes([]);
    void globalSearchApi.addDataChange(scopes, Number(studyId) || null).catch(() => undefined);
  }, [scopes, setScopes, studyId]);

  useRealtimeEvent('data.changed', (push) => {
    if (push.by === me) return;
    for (const scope of push.scopes) void client.invalidateQueries({ queryKey: [scope] });
  });
  return null;
}
