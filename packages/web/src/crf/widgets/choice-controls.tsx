import type { KeyboardEvent } from 'react';
import { Button, Checkbox, Radio, Select, Tag } from 'antd';
import { choicesOf, type Choice, type CrfNode } from '@ecrf/core';
import { CRF_T } from '../crf-texts';
import type { ControlStatus } from './widget-types';
import { placeholderOf } from './widget-utils';

/**
 * The ways a choice item can look (forms §3 showStyle): inline (default), a vertical list
 * (list/open, or itemLayout vertical), buttons or tags (tag), or a drop-down (pop). The widget
 * files pick one per item type; the value shape is always the item type's own.
 */
export type ChoiceLook = 'inline' | 'list' | 'tag' | 'pop';

export function choiceLook(node: CrfNode, fallback: ChoiceLook): ChoiceLook {
  const style = node.option.showStyle;
  if (style === 'tag') return 'tag';
  if (style === 'pop') return 'pop';
  if (style === 'list' || style === 'open') return 'list';
  if (node.option.itemLayout === 'vertical') return fallback === 'pop' ? 'pop' : 'list';
  return fallback;
}

interface SingleProps {
  node: CrfNode;
  id: string;
  value: string | undefined;
  disabled: boolean;
  status: ControlStatus;
  onChange: (value: string) => void;
  onBlur: () => void;
  ariaLabel?: string | undefined;
  labelId?: string | undefined;
}

interface MultiProps extends Omit<SingleProps, 'value' | 'onChange'> {
  value: string[];
  onChange: (value: string[]) => void;
}

const options = (choices: Choice[]) => choices.map((c) => ({ value: c.value, label: c.text }));

/** The pop look's drop-down, searchable by the choices' texts, for one answer or several. */
function popProps({ node, id, disabled, status, ariaLabel, onBlur }: Omit<SingleProps, 'value' | 'onChange'>) {
  return {
    id,
    className: 'crf-select',
    disabled,
    status,
    allowClear: true,
    showSearch: { optionFilterProp: 'label' },
    placeholder: disabled ? undefined : placeholderOf(node, CRF_T.selectPlaceholder),
    options: options(choicesOf(node.option)),
    'aria-label': ariaLabel,
    onBlur,
  };
}

export function SingleChoice({ look, ...props }: SingleProps & { look: ChoiceLook }) {
  const { node, id, value, disabled, onChange, onBlur, ariaLabel, labelId } = props;
  const choices = choicesOf(node.option);
  if (look === 'pop') {
    return <Select {...popProps(props)} value={value} onChange={(next: string | undefined) => onChange(next ?? '')} />;
  }
  // Radios cannot be unticked, so a chosen answer gets a clear link (and Delete clears from the
  // keyboard): a wrong click must be undoable. The link stays out of the Tab order of fast typists.
  const onKeyDown = (event: KeyboardEvent) => {
    if ((event.key === 'Delete' || event.key === 'Backspace') && value && !disabled) onChange('');
  };
  const clear =
    value && !disabled ? (
      <Button type="link" size="small" className="crf-choice-clear" tabIndex={-1} onClick={() => onChange('')}>
        {CRF_T.clear}
      </Button>
    ) : null;
  // Tags are solid buttons; a list stands the radios one under another.
  const lookProps =
    look === 'tag' ? { optionType: 'button' as const, buttonStyle: 'solid' as const } : { vertical: look === 'list' };
  return (
    <div
      className={`crf-choice${look === 'list' ? ' crf-choice-list' : ''}`}
      role="radiogroup"
      aria-labelledby={labelId}
      aria-label={ariaLabel}
      onBlur={onBlur}
      onKeyDown={onKeyDown}
    >
      <Radio.Group
        id={id}
        {...lookProps}
        value={value}
        disabled={disabled}
        options={options(choices)}
        onChange={(event) => onChange(String(event.target.value))}
      />
      {clear}
    </div>
  );
}

export function MultiChoice({ look, ...props }: MultiProps & { look: ChoiceLook }) {
  const { node, id, value, disabled, onChange, onBlur, ariaLabel, labelId } = props;
  const choices = choicesOf(node.option);
  // Emitted in the options' order whatever the order of clicks.
  const ordered = (chosen: readonly string[]) => {
    const set = new Set(chosen);
    const known = choices.filter((c) => set.has(c.value)).map((c) => c.value);
    return [...known, ...chosen.filter((v) => !known.includes(v))];
  };
  if (look === 'pop') {
    return (
      <Select
        {...popProps(props)}
        mode="multiple"
        value={value}
        onChange={(next: string[]) => onChange(ordered(next))}
      />
    );
  }
  if (look === 'tag') {
    return (
      <div
        className="crf-choice crf-choice-tags"
        id={id}
        role="group"
        aria-labelledby={labelId}
        aria-label={ariaLabel}
        onBlur={onBlur}
      >
        {choices.map((c) => (
          <Tag.CheckableTag
            key={c.value}
            checked={value.includes(c.value)}
            className={disabled ? 'crf-tag-disabled' : undefined}
            aria-disabled={disabled}
            onChange={(checked) => {
              if (disabled) return;
              onChange(ordered(checked ? [...value, c.value] : value.filter((v) => v !== c.value)));
            }}
          >
            {c.text}
          </Tag.CheckableTag>
        ))}
      </div>
    );
  }
  return (
    <div
      className={`crf-choice${look === 'list' ? ' crf-choice-list' : ''}`}
      id={id}
      role="group"
      aria-labelledby={labelId}
      aria-label={ariaLabel}
      onBlur={onBlur}
    >
      <Checkbox.Group
        value={value}
        disabled={disabled}
        options={options(choices)}
        onChange={(next) => onChange(ordered(next.map(String)))}
      />
    </div>
  );
}
