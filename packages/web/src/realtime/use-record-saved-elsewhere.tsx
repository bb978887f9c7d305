import { useEffect } from 'react';
import { App, Button } from 'antd';
import { MESSAGE_SECONDS } from '../api/request';
import { CRF_PAGE_TEXT } from '../locales/crf-page.zh-CN';
import { REALTIME_TEXT } from '../locales/realtime.zh-CN';
import { useAppStore } from '../stores/app.store';
import { useSession } from '../stores/session.store';
import { useRealtimeEvent } from './realtime-events';

/**
 * On the CRF page: when someone else saves the record open here, say so (已被他人修改) and offer to reload.
 * `recordId` is read when the push arrives (a new record gets its id at its first save).
 */
export function useRecordSavedElsewhere(studyId: number, recordId: () => number | null, onReload: () => void): void {
  const { notification } = App.useApp();
  const userId = useSession((s) => s.user?.userId ?? null);
  // A CRF page opened from a link has no project page before it: the study it belongs to is the one watched.
  useEffect(() => {
    const store = useAppStore.getState();
    if (studyId > 0 && store.studyId !== String(studyId)) store.setStudyId(String(studyId));
  }, [studyId]);
  useRealtimeEvent('record.saved', (push) => {
    const id = recordId();
    if (id === null || push.recordId !== id || push.by === userId) return;
    const key = `record-saved-${id}`;
    notification.warning({
      key,
      title: REALTIME_TEXT.savedElsewhere,
      description: REALTIME_TEXT.savedElsewhereHint,
      duration: MESSAGE_SECONDS,
      placement: 'bottomRight',
      actions: (
        <Button
          type="primary"
          size="small"
          onClick={() => {
            notification.destroy(key);
            onReload();
          }}
        >
          {CRF_PAGE_TEXT.refresh}
        </Button>
      ),
    });
  });
}
