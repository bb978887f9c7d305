import { formatItemValue } from '@ecrf/core';
import { TextInputBase } from './text-input-base';
import type { ControlProps } from './widget-types';

/** 单行文本: a format "prefix[pattern]" reformats the text on leaving the field (forms §5, via core). */
export function InputWidget(props: ControlProps) {
  const { format, validate } = props.node.option;
  const inputMode = validate?.type === 'phone' ? 'tel' : validate?.type === 'email' ? 'email' : undefined;
  return (
    <TextInputBase
      {...props}
      inputMode={inputMode}
      formatOnBlur={format ? (text) => formatItemValue('input', format, text) : undefined}
    />
  );
}
