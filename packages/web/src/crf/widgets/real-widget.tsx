import { formatItemValue, sanitizeRealInput } from '@ecrf/core';
import { TextInputBase } from './text-input-base';
import type { ControlProps } from './widget-types';

/** 小数: only digits and one decimal point are kept (forms §5); a converter rule applies on leaving the field. */
export function RealWidget(props: ControlProps) {
  const format = props.node.option.format;
  return (
    <TextInputBase
      {...props}
      inputMode="decimal"
      sanitize={sanitizeRealInput}
      formatOnBlur={format ? (text) => formatItemValue('real', format, text) : undefined}
    />
  );
}
