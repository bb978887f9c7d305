import { App, Button } from 'antd';
import { MESSAGE_SECONDS } from '../api/request';
import { T } from '../locales/zh-CN';
import { useSession } from '../stores/session.store';
import { useRealtimeEvent } from './realtime-events';

/**
 * On the CRF page: when someone else saves the record open here, say so (已被他人修改) and offer to reload.
 * `recordId` is read when the push arrives (a new record gets its id at its first save).
 */
export function useRecordSavedElsewhere(recordId: () => number | null, onReload: () => void): void {
  const { notification } = App.useApp();
  const userId = useSession((s) => s.user?.userId ?? null);
  useRealtimeEvent('record.saved', (push) => {
    const id = recordId();
    if (id === null || push.recordId !== id || push.by === userId) return;
    const key = `record-saved-${id}`;
    notification.warning({
      key,
      title: T.realtime.savedElsewhere,
      description: T.realtime.savedElsewhereHint,
      duration: MESSAGE_SECONDS,
      actions: (
        <Button
          type="primary"
          size="small"
          onClick={() => {
            notification.destroy(key);
            onReload();
          }}
        >
          {T.crfPage.refresh}
        </Button>
      ),
    });
  });
}
