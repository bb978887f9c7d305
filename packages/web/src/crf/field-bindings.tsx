import { memo, useCallback } from 'react';
import { additionKey, readRows, unitKey, type CrfNode, type ItemState } from '@ecrf/core';
import { cellKey, useCrfStore, useStoreSlice } from './crf-store';
import { FieldView } from './field-view';
import { sameItemState } from './item-state';

/** A top-level value item bound to the store: its value, unit, addition text, touched flag and server messages. */
export function TopLevelField({ node, state, itemKey }: { node: CrfNode; state: ItemState; itemKey: string }) {
  const store = useCrfStore();
  const name = node.name;
  const shown = useStoreSlice(store, (s) => s.isShown(itemKey));
  const server = useStoreSlice(store, (s) => s.serverErrors(itemKey));
  const unit = useStoreSlice(store, (s) => s.values[unitKey(name)]);
  const addition = useStoreSlice(store, (s) => s.values[additionKey(name)]);
  const onChange = useCallback((value: unknown) => store.setValue(name, value), [store, name]);
  const onBlur = useCallback(() => store.touch(itemKey), [store, itemKey]);
  const onUnitChange = useCallback(
    (next: string) => store.setValue(unitKey(name), next, itemKey),
    [store, name, itemKey],
  );
  const onAdditionChange = useCallback(
    (text: string) => store.setValue(additionKey(name), text, itemKey),
    [store, name, itemKey],
  );
  return (
    <FieldView
      node={node}
      state={state}
      id={`${store.idPrefix}${itemKey}`}
      layout="field"
      showErrors={shown}
      serverErrors={server}
      unit={unit}
      addition={addition}
      onChange={onChange}
      onBlur={onBlur}
      onUnitChange={onUnitChange}
      onAdditionChange={onAdditionChange}
      itemName={name}
    />
  );
}

interface CellFieldProps {
  container: string;
  row: number;
  node: CrfNode;
  state: ItemState;
  layout: 'field' | 'cell';
}

/**
 * A column item in one row of a list group or table. The engine re-evaluates a row container as a
 * whole, so cells compare their state by content and only the edited or recalculated ones render.
 */
export const CellField = memo(
  function CellField({ container, row, node, state, layout }: CellFieldProps) {
    const store = useCrfStore();
    const name = node.name;
    const key = cellKey(container, row, name);
    const shown = useStoreSlice(store, (s) => s.isShown(key));
    const server = useStoreSlice(store, (s) => s.serverErrors(key));
    const unit = useStoreSlice(store, (s) => readRows(s.values[container])[row]?.[unitKey(name)]);
    const onChange = useCallback(
      (value: unknown) => store.setCell(container, row, name, value),
      [store, container, row, name],
    );
    const onBlur = useCallback(() => store.touch(key), [store, key]);
    const onUnitChange = useCallback(
      (next: string) => store.setCell(container, row, unitKey(name), next),
      [store, container, row, name],
    );
    return (
      <FieldView
        node={node}
        state={state}
        id={`${store.idPrefix}${key}`}
        layout={layout}
        showErrors={shown}
        serverErrors={server}
        unit={unit}
        onChange={onChange}
        onBlur={onBlur}
        onUnitChange={onUnitChange}
      />
    );
  },
  (a, b) =>
    a.container === b.container &&
    a.row === b.row &&
    a.node === b.node &&
    a.layout === b.layout &&
    sameItemState(a.state, b.state),
);
