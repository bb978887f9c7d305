import { useMemo, useState } from 'react';
import { Form, Modal, Select } from 'antd';
import { readRows } from '@ecrf/core';
import { COMMON_TEXT } from '../../../locales/common.zh-CN';
import { CRF_PAGE_TEXT } from '../../../locales/crf-page.zh-CN';
import { DOUBT_TEXT } from '../../../locales/doubt.zh-CN';
import type { FormItem } from '../crf-values';

const t = DOUBT_TEXT;

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
      okText={COMMON_TEXT.ok}
      cancelText={COMMON_TEXT.cancel}
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
            placeholder={COMMON_TEXT.selectPlaceholder}
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
                placeholder={COMMON_TEXT.selectPlaceholder}
                options={rows.map((_r, index) => ({ value: index, label: CRF_PAGE_TEXT.row(index + 1) }))}
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
                placeholder={COMMON_TEXT.selectPlaceholder}
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
