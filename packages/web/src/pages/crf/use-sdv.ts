import { useCallback, useState } from 'react';
import { App } from 'antd';
import type { CrfNode } from '@ecrf/core';
import { crfRecordApi } from '../../api/crf.api';
import { CRF_PAGE_TEXT } from '../../locales/crf-page.zh-CN';
import { itemTitle } from './crf-values';

const t = CRF_PAGE_TEXT;

/** SDV on one form's record: the mode that turns the item marks into checkboxes, and the verify call. */
export function useSdv(recordId: number | null, nodes: ReadonlyMap<string, CrfNode>, refreshAll: () => Promise<void>) {
  const { message } = App.useApp();
  const [sdvMode, setSdvMode] = useState(false);
  const [sdvBusy, setSdvBusy] = useState(false);

  const onSdv = useCallback(
    async (itemNames: string[] | undefined, verified: boolean) => {
      if (!recordId) {
        void message.warning(t.sdvNeedsRecord);
        return;
      }
      setSdvBusy(true);
      try {
        await crfRecordApi.sdv({ crfDataRecordId: recordId, itemNames, verified });
        await refreshAll();
        // The tick is the monitor's statement that the value matches the source: say that it is recorded.
        const titles = (itemNames ?? []).map((name) => itemTitle(nodes, name)).join('、');
        void message.success(
          itemNames
            ? verified
              ? t.sdvDone(titles)
              : t.sdvUndone(titles)
            : verified
              ? t.sdvFormDoneMsg
              : t.sdvFormUndoneMsg,
        );
      } catch {
        // The request wrapper has shown why.
      } finally {
        setSdvBusy(false);
      }
    },
    [recordId, refreshAll, message, nodes],
  );

  return { sdvMode, setSdvMode, sdvBusy, onSdv };
}
