import { memo } from 'react';
import { Button, Checkbox, Radio } from 'antd';
import {
  choicesOf,
  isDisplayed,
  isEmptyValue,
  readChoiceList,
  writeCheckbox,
  type Choice,
  type CrfNode,
} from '@ecrf/core';
import { useCrfStore, useStoreSlice } from '../crf-store';
import { CRF_T } from '../crf-texts';
import { useRenderProbe } from '../render-probe';
import { titleOf } from './widget-utils';

/**
 * A group shown as a matrix (showStyle table, as REDCap matrix groups import): one row per radio or
 * checkbox item, one column per shared choice. Null when the children do not share their choices.
 */
export function matrixChoices(node: CrfNode): Choice[] | null {
  const first = node.children[0];
  if (!first) return null;
  const same = node.children.every(
    (child) =>
      (child.type === 'radio' || child.type === 'checkbox') &&
      child.option.optionsValue === first.option.optionsValue &&
      child.option.optionsText === first.option.optionsText,
  );
  const choices = choicesOf(first.option);
  return same && choices.length > 0 ? choices : null;
}

export function MatrixTable({ node, choices }: { node: CrfNode; choices: Choice[] }) {
  return (
    <table className="crf-matrix">
      <thead>
        <tr>
          <th aria-hidden />
          {choices.map((choice) => (
            <th key={choice.value} scope="col">
              {choice.text}
            </th>
          ))}
          <th aria-hidden />
        </tr>
      </thead>
      <tbody>
        {node.children.map((child, i) => (
          <MatrixRow key={child.name || i} node={child} choices={choices} />
        ))}
      </tbody>
    </table>
  );
}

/** One item of the matrix; like every item it subscribes to its own state only. */
const MatrixRow = memo(function MatrixRow({ node, choices }: { node: CrfNode; choices: Choice[] }) {
  const store = useCrfStore();
  const key = store.keyOf(node);
  const state = useStoreSlice(store, (s) => s.state.items[key]);
  const shown = useStoreSlice(store, (s) => s.isShown(key));
  const server = useStoreSlice(store, (s) => s.serverErrors(key));
  useRenderProbe(key);
  if (!state?.visible || !isDisplayed(node)) return null;
  const title = titleOf(node);
  const multi = node.type === 'checkbox';
  const chosen = readChoiceList(state.value);
  const own = shown || !isEmptyValue(state.value);
  const messages = [...(server ?? []), ...(own ? state.errors : [])].filter((m, i, all) => all.indexOf(m) === i);
  const disabled = state.readOnly;
  const set = (value: string, on: boolean) => {
    if (!multi) store.setValue(node.name, on ? value : '');
    else store.setValue(node.name, writeCheckbox(on ? [...chosen, value] : chosen.filter((v) => v !== value)));
  };
  return (
    <tr className={messages.length > 0 ? 'crf-matrix-error' : undefined}>
      <th scope="row">
        {state.required && (
          <span className="crf-required" aria-hidden>
            *
          </span>
        )}
        {title}
        {messages.map((message) => (
          <div className="crf-field-error" role="alert" key={message}>
            {message}
          </div>
        ))}
      </th>
      {choices.map((choice) => {
        const checked = chosen.includes(choice.value);
        const label = `${title} ${choice.text}`;
        return (
          <td key={choice.value}>
            {multi ? (
              <Checkbox
                checked={checked}
                disabled={disabled}
                aria-label={label}
                onChange={(event) => set(choice.value, event.target.checked)}
              />
            ) : (
              <Radio
                checked={checked}
                disabled={disabled}
                aria-label={label}
                onChange={() => set(choice.value, true)}
              />
            )}
          </td>
        );
      })}
      <td>
        {!multi && chosen.length > 0 && !disabled && (
          <Button type="link" size="small" className="crf-choice-clear" tabIndex={-1} onClick={() => set('', false)}>
            {CRF_T.clear}
          </Button>
        )}
      </td>
    </tr>
  );
});
