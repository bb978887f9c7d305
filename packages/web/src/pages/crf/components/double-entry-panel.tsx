import { useCallback, useMemo, useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, App, Button, Popconfirm, Space, Spin, Tag } from 'antd';
import type { CrfDefinition, MissingMarks } from '@ecrf/core';
import { doubleEntryApi, type DoubleEntryInstance } from '../../../api/double-entry.api';
import { useMissingCodes } from '../../../api/missing-codes.api';
import { CrfForm } from '../../../crf';
import { DOUBLE_ENTRY_TEXT as t } from '../../../locales/double-entry.zh-CN';
import { DoubleEntryReconcile } from './double-entry-reconcile';

const NO_MARKS: MissingMarks = {};

const withoutMarked = (values: Record<string, unknown>, missing: MissingMarks) =>
  Object.fromEntries(Object.entries(values).filter(([name]) => !Object.hasOwn(missing, name)));

export const doubleEntryKey = (i: DoubleEntryInstance) => ['double-entry', 'mine', i] as const;

/** The caller's entry of a form instance: whether the form is set to double entry at all, and the entry. */
export function useMyDoubleEntry(instance: DoubleEntryInstance, enabled = true) {
  return useQuery({
    queryKey: doubleEntryKey(instance),
    queryFn: async () => (await doubleEntryApi.mine(instance)).data,
    enabled: enabled && instance.studyId > 0,
  });
}

export interface DoubleEntryPanelProps {
  instance: DoubleEntryInstance;
  definition: CrfDefinition;
  /** A lock leaves the entry read-only, as the server would refuse it. */
  locked: boolean;
  /** The record was written by the reconcile: the page reloads it. */
  onReconciled: (crfDataRecordId: number) => void;
}

/**
 * 双份录入 (issue 37) on the CRF page: in place of the record, the entering user's own entry (第一次录入 or
 * 第二次录入), never the other one; 保存录入 and 完成录入. An item may be marked with a 缺失原因 code as on the form
 * itself: the marks are saved with the entry and compared as values. A reconciler who typed neither entry gets 双录入核对 once both
 * are done.
 */
export function DoubleEntryPanel({ instance, definition, locked, onReconciled }: DoubleEntryPanelProps) {
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const mine = useMyDoubleEntry(instance);
  const [edited, setEdited] = useState<{
    base: unknown;
    values: Record<string, unknown>;
    missing: MissingMarks;
  } | null>(null);
  const missingCodes = useMissingCodes(instance.studyId);
  const [busy, setBusy] = useState(false);
  const [reconciling, setReconciling] = useState(false);
  const data = mine.data;
  const entry = data?.entry ?? null;

  // The working copy is the stored entry until edited; another entry loaded (a new stored copy) starts it afresh.
  const storedValues = entry?.values;
  const current = edited && edited.base === storedValues ? edited : null;
  const values = current ? current.values : (storedValues ?? {});
  const missing = current ? current.missing : (entry?.missing ?? NO_MARKS);
  const context = useMemo(() => ({ missing }), [missing]);
  // Both from the latest working copy (the form may call back with a handler of an earlier render).
  const storedMarks = entry?.missing;
  const working = useCallback(
    (prev: typeof edited) =>
      prev && prev.base === storedValues ? prev : { values: storedValues ?? {}, missing: storedMarks ?? NO_MARKS },
    [storedValues, storedMarks],
  );
  const onMarkMissing = useCallback(
    (name: string, code: string | null) =>
      setEdited((prev) => {
        const from = working(prev);
        const next: Record<string, string> = { ...from.missing };
        if (code === null) delete next[name];
        else next[name] = code;
        // A marked item holds no value: what was typed into it is not kept beside the mark.
        const nextValues = { ...from.values };
        if (code !== null) delete nextValues[name];
        return { base: storedValues, values: nextValues, missing: next };
      }),
    [working, storedValues],
  );
  const onChange = useCallback(
    (v: Record<string, unknown>) =>
      setEdited((prev) => ({ base: storedValues, values: v, missing: working(prev).missing })),
    [working, storedValues],
  );

  if (!data) return <Spin />;
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['double-entry'] });
  const entryNo = entry?.entryNo ?? data.nextEntryNo;
  const done = entry?.state === 'done';
  const readOnly = locked || done || entryNo === null;
  const bothDone = data.pair.length === 2 && data.pair.every((p) => p.state === 'done');

  // The whole map of marks, always: an item left out is a mark cleared.
  const body = () => ({ ...instance, values: withoutMarked(values, missing), missing: { ...missing } });
  const save = async () => {
    setBusy(true);
    try {
      await doubleEntryApi.save(body());
      void message.success(t.saved);
      await refresh();
    } finally {
      setBusy(false);
    }
  };
  const finish = async () => {
    setBusy(true);
    try {
      await doubleEntryApi.save(body());
      await doubleEntryApi.done(instance);
      void message.success(t.entryDone);
      await refresh();
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="double-entry-panel">
      <Space wrap style={{ marginBottom: 12 }}>
        <Tag color="blue">{t.doubleEntry}</Tag>
        {entryNo !== null && <strong>{t.entryTitle(entryNo)}</strong>}
        {data.pair.map((p) => (
          <Tag key={p.entryNo} color={p.state === 'done' ? 'green' : 'default'}>
            {t.pairState(p.entryNo, p.state, p.userName)}
          </Tag>
        ))}
        {data.mayReconcile && bothDone && (
          <Button type="primary" onClick={() => setReconciling(true)}>
            {t.reconcile}
          </Button>
        )}
      </Space>
      <Alert type="info" showIcon message={t.entryHint} style={{ marginBottom: 12 }} />
      {entryNo === null ? (
        !data.mayReconcile && (
          <Alert type="warning" showIcon message={data.pair.length >= 2 ? t.bothTaken : t.noRight} />
        )
      ) : (
        <>
          {done && <Alert type="success" showIcon message={t.entryDone} style={{ marginBottom: 12 }} />}
          <CrfForm
            definition={definition}
            values={values}
            readOnly={readOnly}
            context={context}
            missingCodes={missingCodes}
            onMarkMissing={readOnly ? undefined : onMarkMissing}
            onChange={onChange}
          />
          {!readOnly && (
            <Space style={{ marginTop: 12 }}>
              <Button loading={busy} onClick={() => void save()}>
                {t.saveEntry}
              </Button>
              <Popconfirm title={t.confirmDone} onConfirm={() => void finish()}>
                <Button type="primary" loading={busy}>
                  {t.doneEntry}
                </Button>
              </Popconfirm>
            </Space>
          )}
        </>
      )}
      <DoubleEntryReconcile
        open={reconciling}
        instance={instance}
        definition={definition}
        onClose={() => setReconciling(false)}
        onReconciled={(id) => {
          setReconciling(false);
          void refresh();
          onReconciled(id);
        }}
      />
    </div>
  );
}
