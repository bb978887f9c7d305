import { useMemo, useState } from 'react';
import { Form, Modal, Select } from 'antd';
import { readRows } from '@ecrf/core';
import { T } from '../../../locales/zh-CN';
import type { FormItem } from '../crf-values';

const t = T.doubt;

export interface PickedItem {
  item: FormItem;
  /** A list-group or table cell: the column and the row. */
  column?: { name: string; title: string; index: number };
}

/** The 质疑 button's picker: one item of the form, or one cell of a list group or table. */
export function DoubtPicker({
  open,
  items,
  values,
  onPick,
  onCancel,
}: {
  open: boolean;
  items: FormItem[];
  values: Record<string, unknown>;
  onPick: (picked: PickedItem) => void;
  onCancel: () => void;
}) {
  const [name, setName] = useState<string | undefined>();
  const [row, setRow] = useState<number | undefined>();
  const [column, setColumn] = useState<string | undefined>();
  const [error, setError] = useState<string | null>(null);
  const item = items.find((i) => i.name === name);
  const rows = useMemo(() => (item && item.columns.length > 0 ? readRows(values[item.name]) : []), [item, values]);
  const isRows = Boolean(item && item.columns.length > 0);

  const confirm = () => {
    if (!item || (isRows && (row === undefined || !column))) {
      setError(t.pickItemRequired);
      return;
    }
    const col = item.columns.find((c) => c.name === column);
    onPick(isRows && col ? { item, column: { name: col.name, title: col.title || col.name, index: row! } } : { item });
  };

  return (
    <Modal
      open={open}
      title={t.pickTitle}
      onCancel={onCancel}
      onOk={confirm}
      okText={T.common.ok}
      cancelText={T.common.cancel}
      destroyOnHidden
      afterClose={() => {
        setName(undefined);
        setRow(undefined);
        setColumn(undefined);
        setError(null);
      }}
    >
      <Form layout="vertical">
        <Form.Item
          label={t.pickItem}
          required
          validateStatus={error && !item ? 'error' : undefined}
          help={error && !item ? error : undefined}
        >
          <Select
            aria-label={t.pickItem}
            showSearch={{ optionFilterProp: 'label' }}
            placeholder={T.common.selectPlaceholder}
            value={name}
            options={items.map((i) => ({
              value: i.name,
              label: i.path.length > 0 ? `${i.title}（${i.path.join(' / ')}）` : i.title,
            }))}
            onChange={(value: string) => {
              setName(value);
              setRow(undefined);
              setColumn(undefined);
              setError(null);
            }}
          />
        </Form.Item>
        {isRows && (
          <>
            <Form.Item label={t.pickRow} required validateStatus={error && row === undefined ? 'error' : undefined}>
              <Select
                aria-label={t.pickRow}
                value={row}
                placeholder={T.common.selectPlaceholder}
                options={rows.map((_r, index) => ({ value: index, label: T.crfPage.row(index + 1) }))}
                onChange={(value: number) => setRow(value)}
              />
            </Form.Item>
            <Form.Item
              label={t.pickColumn}
              required
              validateStatus={error && !column ? 'error' : undefined}
              help={error && item ? error : undefined}
            >
              <Select
                aria-label={t.pickColumn}
                value={column}
                placeholder={T.common.selectPlaceholder}
                options={item!.columns.map((c) => ({ value: c.name, label: c.title || c.name }))}
                onChange={(value: string) => setColumn(value)}
              />
            </Form.Item>
          </>
        )}
      </Form>
    </Modal>
  );
}
