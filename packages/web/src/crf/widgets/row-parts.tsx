import type { ReactNode } from 'react';
import { Button, Popconfirm } from 'antd';
import { DeleteOutlined, PlusOutlined } from '@ant-design/icons';
import type { ItemState } from '@ecrf/core';
import { useCrfStore, useStoreSlice } from '../crf-store';
import { CRF_T } from '../crf-texts';
import { ItemOpenButton } from '../item-open-button';
import { titleOf } from './widget-utils';
import type { CrfNode } from '@ecrf/core';

/** The heading of a list group or table: required mark and title. */
export function RowsHeading({ node, state }: { node: CrfNode; state: ItemState }) {
  const title = titleOf(node);
  return (
    <div className="crf-block-head">
      <span className="crf-block-title">
        {state.required && (
          <span className="crf-required" aria-hidden>
            *
          </span>
        )}
        {title}
      </span>
      {node.option.description && <span className="crf-block-desc">{node.option.description}</span>}
      <ItemOpenButton name={node.name} title={title} />
    </div>
  );
}

/** Messages of the row container itself (required with no rows), shown once touched, and the server's. */
export function RowsMessages({ state, itemKey }: { state: ItemState; itemKey: string }) {
  const store = useCrfStore();
  const shown = useStoreSlice(store, (s) => s.isShown(itemKey));
  const server = useStoreSlice(store, (s) => s.serverErrors(itemKey));
  const messages = [...(server ?? []), ...(shown ? state.errors : [])].filter((m, i, all) => all.indexOf(m) === i);
  return (
    <>
      {messages.map((message) => (
        <div className="crf-field-error" role="alert" key={message}>
          {message}
        </div>
      ))}
    </>
  );
}

export function AddRowButton({ container, disabled }: { container: string; disabled: boolean }): ReactNode {
  const store = useCrfStore();
  if (disabled) return null;
  return (
    <Button type="dashed" block icon={<PlusOutlined />} className="crf-add-row" onClick={() => store.addRow(container)}>
      {CRF_T.addRow}
    </Button>
  );
}

export function RemoveRowButton({ container, index, label }: { container: string; index: number; label?: boolean }) {
  const store = useCrfStore();
  return (
    <Popconfirm
      title={CRF_T.confirmRemoveRow}
      okText={CRF_T.ok}
      cancelText={CRF_T.cancel}
      onConfirm={() => store.removeRow(container, index)}
    >
      <Button
        type="text"
        danger
        size="small"
        icon={<DeleteOutlined />}
        aria-label={`${CRF_T.remove}${CRF_T.rowTitle(index + 1)}`}
      >
        {label ? CRF_T.remove : null}
      </Button>
    </Popconfirm>
  );
}
