import { Input } from 'antd';
import { toNumber } from '@ecrf/core';
import type { ControlProps } from './widget-types';
import { asText, placeholderOf } from './widget-utils';

/** 多行文本: grows with its text; a length bound in validate.max shows a counter (the engine judges it). */
export function TextareaWidget({ node, id, value, disabled, status, onChange, onBlur, ariaLabel }: ControlProps) {
  const text = asText(value);
  const max = toNumber(node.option.validate?.max);
  return (
    <Input.TextArea
      id={id}
      value={text}
      disabled={disabled}
      status={status}
      placeholder={disabled ? undefined : placeholderOf(node)}
      aria-label={ariaLabel}
      autoSize={{ minRows: 2, maxRows: 8 }}
      count={max !== null && max > 0 ? { show: true, max } : undefined}
      onChange={(event) => onChange(event.target.value)}
      onBlur={onBlur}
    />
  );
}
