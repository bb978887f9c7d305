import { useMemo, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Alert, App, Modal, Radio, Select, Space, Spin, Table } from 'antd';
import { valueText, type CrfDefinition, type DoubleEntryDecision } from '@ecrf/core';
import { doubleEntryApi, type DoubleEntryInstance } from '../../../api/double-entry.api';
import { useMissingCodes } from '../../../api/missing-codes.api';
import { DOUBLE_ENTRY_TEXT as t } from '../../../locales/double-entry.zh-CN';
import { formItems, nodesByName } from '../crf-values';
import { CustomValueInput, type CustomValue } from './double-entry-custom-value';

export interface DoubleEntryReconcileProps {
  open: boolean;
  instance: DoubleEntryInstance;
  definition: CrfDefinition;
  onClose: () => void;
  onReconciled: (crfDataRecordId: number) => void;
}

/** 自定义: the value read from the paper, or a 缺失原因 code in its place. */
type Choice = { kind: 'entry1' | 'entry2' } | { kind: 'custom'; value: CustomValue; missing?: string };

interface Row {
  name: string;
  title: string;
  entry1: string;
  entry2: string;
  differs: boolean;
}

/**
 * 双录入核对 (issue 37): both entries side by side, every item of the form, the differing ones highlighted with a
 * choice each (第一次录入, 第二次录入, or 自定义: a value from the paper CRF in a control fitting the item, or a
 * 缺失原因 code); 确认核对 writes the decided record, the server checking a typed value as a save's. The
 * server decides what differs (core's compareDoubleEntries): the page shows its answer.
 */
export function DoubleEntryReconcile({ open, instance, definition, onClose, onReconciled }: DoubleEntryReconcileProps) {
  const { message } = App.useApp();
  const compare = useQuery({
    queryKey: ['double-entry', 'compare', instance],
    queryFn: async () => (await doubleEntryApi.compare(instance)).data,
    enabled: open,
  });
  const [choices, setChoices] = useState<Record<string, Choice>>({});
  const [busy, setBusy] = useState(false);
  const nodes = useMemo(() => nodesByName(definition), [definition]);
  const missingCodes = useMissingCodes(instance.studyId);
  const data = compare.data;

  const rows = useMemo<Row[]>(() => {
    if (!data) return [];
    const differing = new Set(data.differences.map((d) => d.itemName));
    const text = (values: Record<string, unknown>, missing: Record<string, string>, name: string) =>
      missing[name] ? t.missingMark(missing[name]) : valueText(nodes.get(name), values[name], values);
    return formItems(definition).map((item) => ({
      name: item.name,
      title: item.title,
      entry1: text(data.entry1.values, data.entry1.missing, item.name),
      entry2: text(data.entry2.values, data.entry2.missing, item.name),
      differs: differing.has(item.name),
    }));
  }, [data, definition, nodes]);

  const confirm = async () => {
    if (!data) return;
    const decisions: Record<string, DoubleEntryDecision> = {};
    for (const d of data.differences) {
      const choice = choices[d.itemName];
      if (!choice) {
        void message.warning(t.undecided);
        return;
      }
      decisions[d.itemName] =
        choice.kind !== 'custom' ? choice.kind : choice.missing ? { missing: choice.missing } : { value: choice.value };
    }
    setBusy(true);
    try {
      const res = await doubleEntryApi.reconcile(instance, decisions);
      void message.success(t.reconciled);
      onReconciled(res.data.crfDataRecordId);
    } finally {
      setBusy(false);
    }
  };

  const choose = (name: string, choice: Choice) => setChoices((c) => ({ ...c, [name]: choice }));

  return (
    <Modal
      open={open}
      title={t.reconcile}
      width={900}
      okText={t.confirmReconcile}
      onOk={() => void confirm()}
      okButtonProps={{ loading: busy, disabled: !data }}
      onCancel={onClose}
      destroyOnHidden
    >
      {!data ? (
        <Spin />
      ) : (
        <>
          <Alert
            type={data.differences.length > 0 ? 'warning' : 'success'}
            showIcon
            message={data.differences.length > 0 ? t.differences(data.differences.length) : t.noDifferences}
            style={{ marginBottom: 12 }}
          />
          <Table<Row>
            rowKey="name"
            size="small"
            pagination={false}
            dataSource={rows}
            rowClassName={(row) => (row.differs ? 'double-entry-diff' : '')}
            onRow={(row) => (row.differs ? { style: { background: '#fff1f0' } } : {})}
            columns={[
              { title: t.item, dataIndex: 'title', width: 180 },
              { title: `${t.entry1}（${data.entry1.userName}）`, dataIndex: 'entry1' },
              { title: `${t.entry2}（${data.entry2.userName}）`, dataIndex: 'entry2' },
              {
                title: t.result,
                key: 'result',
                width: 300,
                render: (_: unknown, row) => {
                  if (!row.differs) return row.entry1;
                  const choice = choices[row.name];
                  return (
                    <Radio.Group
                      aria-label={`${row.title}${t.result}`}
                      value={choice?.kind}
                      onChange={(e) =>
                        choose(
                          row.name,
                          e.target.value === 'custom'
                            ? { kind: 'custom', value: '' }
                            : { kind: e.target.value as 'entry1' | 'entry2' },
                        )
                      }
                    >
                      <Radio value="entry1">{t.entry1}</Radio>
                      <Radio value="entry2">{t.entry2}</Radio>
                      <Radio value="custom">{t.custom}</Radio>
                      {choice?.kind === 'custom' && (
                        <Space orientation="vertical" size={4} style={{ width: '100%', marginTop: 4 }}>
                          <CustomValueInput
                            node={nodes.get(row.name)}
                            title={row.title}
                            value={choice.value}
                            disabled={Boolean(choice.missing)}
                            onChange={(value) => choose(row.name, { kind: 'custom', value })}
                          />
                          {missingCodes.length > 0 && (
                            <Select
                              size="small"
                              allowClear
                              aria-label={t.customMissingLabel(row.title)}
                              placeholder={t.customMissing}
                              style={{ width: '100%' }}
                              value={choice.missing}
                              options={missingCodes.map((c) => ({ value: c.code, label: `${c.label}(${c.code})` }))}
                              onChange={(missing?: string) =>
                                choose(row.name, { kind: 'custom', value: choice.value, missing })
                              }
                            />
                          )}
                        </Space>
                      )}
                    </Radio.Group>
                  );
                },
              },
            ]}
          />
        </>
      )}
    </Modal>
  );
}
