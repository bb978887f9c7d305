import { memo, type ReactNode } from 'react';
import { Input, Select, Space, Tooltip } from 'antd';
import {
  IDENTIFIER_MASK,
  isEmptyValue,
  isIdentifierMask,
  itemUnit,
  overrideInUnit,
  referenceRange,
  unitsOf,
  type CrfNode,
  type ItemState,
} from '@ecrf/core';
import { useCrfStore, useStoreSlice } from './crf-store';
import { CRF_T } from './crf-texts';
import { ItemOpenButton } from './item-open-button';
import { MissingMarkMenu, MissingMarkTag } from './missing-mark';
import { sameItemState } from './item-state';
import { useRenderProbe } from './render-probe';
import { renderControl } from './widget-registry';
import { asText, titleOf, widthStyle } from './widgets/widget-utils';

export interface FieldViewProps {
  node: CrfNode;
  state: ItemState;
  id: string;
  /** field: label above the control; cell: a table cell, the control names itself. */
  layout: 'field' | 'cell';
  /** The user has touched the item (blur or change) or the form asks to show every message. */
  showErrors: boolean;
  serverErrors: readonly string[] | undefined;
  /** The chosen unit when the item offers several. */
  unit: unknown;
  onChange: (value: unknown) => void;
  onBlur: () => void;
  onUnitChange: (unit: string) => void;
  /** The addition text of a choice item (stored under <name>_addition). */
  addition?: unknown;
  onAdditionChange?: ((text: string) => void) | undefined;
  /** A top-level item's name: it gets its own control for the page's item panel when the page asks for one. */
  itemName?: string | undefined;
}

/** Wide enough for the longest unit: about 8 px per Latin character, 14 per Chinese one, plus the arrow. */
const unitSelectWidth = (units: readonly string[]) =>
  Math.max(76, ...units.map((u) => [...u].reduce((w, ch) => w + (ch.charCodeAt(0) > 255 ? 14 : 8), 0) + 44));

/** Types whose control joins a unit addon in one compact box. */
const COMPACT_TYPES = new Set(['input', 'text', 'int', 'real', 'number']);

function unique(lists: ReadonlyArray<readonly string[] | undefined>): string[] {
  const out: string[] = [];
  for (const list of lists) for (const message of list ?? []) if (!out.includes(message)) out.push(message);
  return out;
}

/**
 * One value item: label with the required mark, the control, its unit (or unit selector), the
 * reference-range mark, the right-hand text, the description, the addition box and the messages.
 * The engine's messages are shown exactly; the item's own ones once it is touched or filled, the
 * server's always (until the item is edited).
 */
function FieldViewInner(props: FieldViewProps) {
  const {
    node,
    state,
    id,
    layout,
    showErrors,
    serverErrors,
    unit,
    onChange,
    onBlur,
    onUnitChange,
    addition,
    onAdditionChange,
    itemName,
  } = props;
  const store = useCrfStore();
  const recognised = useStoreSlice(store, (s) => (itemName ? s.isRecognised(itemName) : false));
  useRenderProbe(id);
  const title = titleOf(node);
  // 缺失原因: a marked item raises nothing, and a refusal's message on it is answered by the mark.
  const marked = state.missing !== undefined;
  const own = !marked && (showErrors || !isEmptyValue(state.value));
  const errors = unique([marked ? undefined : serverErrors, own ? state.errors : undefined]);
  const warnings = own ? state.warnings : [];
  const status = errors.length > 0 ? 'error' : warnings.length > 0 ? 'warning' : undefined;
  const disabled = state.readOnly;
  const units = unitsOf(node.option);
  const chosenUnit = itemUnit(node.option, unit);

  // An identifier the reader may not see (no 查看患者身份信息): its mask as read-only text, whatever the item's
  // type, so nobody edits a mask; the engine keeps it read-only and the save keeps the stored value.
  // A marked item holds no value: its code stands where the control would, until the mark is cleared.
  const control = marked ? (
    <MissingMarkTag id={id} code={state.missing!} />
  ) : isIdentifierMask(state.value) ? (
    <Input
      id={id}
      className="crf-identifier-masked"
      value={IDENTIFIER_MASK}
      readOnly
      disabled
      title={CRF_T.identifierMasked}
      aria-label={layout === 'cell' ? title : undefined}
      aria-labelledby={layout === 'field' ? `${id}-label` : undefined}
    />
  ) : (
    renderControl({
      node,
      id,
      value: state.value,
      disabled,
      status,
      onChange,
      onBlur,
      ariaLabel: layout === 'cell' ? title : undefined,
      labelId: layout === 'field' ? `${id}-label` : undefined,
    })
  );
  if (control === null) return null;

  let body: ReactNode = control;
  if (marked) {
    // The tag alone: no unit to choose for a value that is not there.
  } else if (units.length > 0 && COMPACT_TYPES.has(node.type)) {
    body = (
      <Space.Compact block>
        {control}
        {units.length === 1 ? (
          <Space.Addon className="crf-unit-addon">{units[0]}</Space.Addon>
        ) : (
          <Select
            className="crf-unit-select"
            style={{ width: unitSelectWidth(units) }}
            aria-label={`${title}${CRF_T.unit}`}
            value={chosenUnit}
            disabled={disabled}
            popupMatchSelectWidth={false}
            options={units.map((u) => ({ value: u, label: u }))}
            onChange={(next: string) => onUnitChange(next)}
          />
        )}
      </Space.Compact>
    );
  } else if (units.length > 0) {
    body = (
      <>
        {control}
        <span className="crf-unit">{chosenUnit}</span>
      </>
    );
  }

  let rangeMark: ReactNode = null;
  if (state.range) {
    // The tooltip gives the range in the unit the value is entered in, as the engine judged it.
    const site = store.context.referenceRanges?.[node.name];
    const range = site
      ? overrideInUnit(site, node.option, chosenUnit)
      : referenceRange(node.option, store.context.gender ?? null, chosenUnit);
    const low = state.range === 'low';
    rangeMark = (
      <Tooltip title={range ? CRF_T.rangeTip(range.min, range.max, chosenUnit) : undefined}>
        <span className={`crf-range crf-range-${state.range}`} tabIndex={0}>
          {low ? `↓ ${CRF_T.rangeLow}` : `↑ ${CRF_T.rangeHigh}`}
        </span>
      </Tooltip>
    );
  }

  const { description, rightItemText } = node.option;
  return (
    <div className={`crf-field crf-field-${layout} crf-type-${node.type}${status ? ` crf-field-has-${status}` : ''}`}>
      {layout === 'field' && (
        <div className="crf-field-label">
          {state.required && (
            <span className="crf-required" aria-hidden>
              *
            </span>
          )}
          <label htmlFor={id} id={`${id}-label`}>
            {title}
          </label>
          {store.isCalculated(node) && <span className="crf-calculated">{CRF_T.calculated}</span>}
          {recognised && itemName && (
            <Tooltip title={CRF_T.recognisedTip}>
              <button
                type="button"
                className="crf-recognised"
                aria-label={CRF_T.recognisedConfirm(title)}
                onClick={() => store.confirmRecognised(itemName)}
              >
                {CRF_T.recognised}
              </button>
            </Tooltip>
          )}
          {itemName && <MissingMarkMenu name={itemName} title={title} code={state.missing} />}
          {itemName && <ItemOpenButton name={itemName} title={title} />}
        </div>
      )}
      <div className="crf-field-body">
        <div className="crf-field-control" style={widthStyle(node)}>
          {body}
        </div>
        {rangeMark}
        {rightItemText && <span className="crf-field-right">{rightItemText}</span>}
      </div>
      {description && layout === 'field' && <div className="crf-field-desc">{description}</div>}
      {state.additionVisible && onAdditionChange && (
        <Input
          className="crf-addition"
          value={asText(addition)}
          disabled={disabled}
          placeholder={node.option.addition}
          aria-label={node.option.addition || `${title}${CRF_T.inputPlaceholder}`}
          onChange={(event) => onAdditionChange(event.target.value)}
          onBlur={onBlur}
        />
      )}
      {errors.map((message) => (
        <div className="crf-field-error" role="alert" key={`e-${message}`}>
          {message}
        </div>
      ))}
      {warnings.map((message) => (
        <div className="crf-field-warning" key={`w-${message}`}>
          {message}
        </div>
      ))}
    </div>
  );
}

export const FieldView = memo(
  FieldViewInner,
  (a, b) =>
    a.node === b.node &&
    a.id === b.id &&
    a.layout === b.layout &&
    a.showErrors === b.showErrors &&
    a.serverErrors === b.serverErrors &&
    a.unit === b.unit &&
    a.addition === b.addition &&
    a.onChange === b.onChange &&
    a.onBlur === b.onBlur &&
    a.onUnitChange === b.onUnitChange &&
    a.onAdditionChange === b.onAdditionChange &&
    a.itemName === b.itemName &&
    sameItemState(a.state, b.state),
);
