import { formatItemValue } from '@ecrf/core';
import { TextInputBase } from './text-input-base';
import type { ControlProps } from './widget-types';

/** 整数: kept as typed; a converter rule in format is applied on leaving the field (forms §5). */
export function IntWidget(props: ControlProps) {
  const format = props.node.option.format;
  return (
    <TextInputBase
      {...props}
      inputMode="numeric"
      formatOnBlur={format ? (text) => formatItemValue('int', format, text) : undefined}
    />
  );
}
