import { useCallback, useState } from 'react';
import { App } from 'antd';
import type { CrfNode } from '@ecrf/core';
import type { CrfDoubtMark, CrfRecordDetail } from '../../api/crf.api';
import { DOUBT_TEXT } from '../../locales/doubt.zh-CN';
import { formatLooseValue, formatValue, itemTitle, type FormItem } from './crf-values';
import type { DoubtDialogMode } from './components/doubt-dialog';
import type { PickedItem } from './components/doubt-picker';

export interface FormDoubtsOptions {
  detail: CrfRecordDetail | null;
  /** The open record's saved id. */
  recordId: number | null;
  /** The values as saved: a query is raised on them. */
  savedValues: Record<string, unknown>;
  /** The editor holds unsaved values. */
  unsaved: boolean;
  nodes: ReadonlyMap<string, CrfNode>;
}

/** Queries on one form's record: the item picker that raises one, and the query dialog (a new query or a history). */
export function useFormDoubts({ detail, recordId, savedValues, unsaved, nodes }: FormDoubtsOptions) {
  const { message } = App.useApp();
  const [doubtMode, setDoubtMode] = useState<DoubtDialogMode | null>(null);
  const [picking, setPicking] = useState(false);

  const openDoubtPicker = () => {
    // QRY-07/QRY-20: queries are raised on the saved record, so unsaved values are saved first.
    if (!recordId || unsaved) {
      void message.warning(DOUBT_TEXT.saveFirst);
      return;
    }
    setPicking(true);
  };

  const onPicked = ({ item, column }: PickedItem) => {
    setPicking(false);
    const existing = (detail?.crfDoubts ?? []).find((d) =>
      column
        ? d.groupName === item.name && d.groupIndex === column.index && d.itemName === column.name
        : d.itemName === item.name && !d.groupName,
    );
    if (existing && existing.doubtType === 1) {
      void message.info(DOUBT_TEXT.pickHasOpen);
      setDoubtMode({ kind: 'history', doubtId: existing.doubtId });
      return;
    }
    const rows = column ? (savedValues[item.name] as Array<Record<string, unknown>> | undefined) : undefined;
    const row = column ? (rows?.[column.index] ?? {}) : savedValues;
    const columnNode = column ? item.columns.find((c) => c.name === column.name) : undefined;
    setDoubtMode({
      kind: 'start',
      target: {
        crfDataRecordId: recordId,
        itemName: column ? column.name : item.name,
        itemTitle: column ? `${DOUBT_TEXT.groupRow(item.title, column.index)} · ${column.title}` : item.title,
        groupName: column ? item.name : null,
        groupIndex: column ? column.index : null,
        value: column
          ? formatValue(columnNode, row[column.name], row)
          : formatValue(item.node, savedValues[item.name], savedValues),
      },
    });
  };

  const describeDoubt = useCallback(
    (d: { itemName: string; groupName: string | null; groupIndex: number | null }) => ({
      title: d.groupName
        ? `${itemTitle(nodes, d.groupName)} · ${itemTitle(nodes, d.itemName)}`
        : itemTitle(nodes, d.itemName),
      format: (value: unknown) => formatLooseValue(nodes, d.itemName, value),
    }),
    [nodes],
  );

  const onDoubts = useCallback(
    (_item: FormItem, doubts: CrfDoubtMark[]) => setDoubtMode({ kind: 'history', doubtId: doubts[0]!.doubtId }),
    [],
  );

  return {
    doubtMode,
    closeDoubt: () => setDoubtMode(null),
    picking,
    cancelPicking: () => setPicking(false),
    openDoubtPicker,
    onPicked,
    describeDoubt,
    onDoubts,
  };
}
