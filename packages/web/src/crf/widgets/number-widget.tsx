import { formatItemValue, toNumber, toPlainDecimal } from '@ecrf/core';
import { CRF_T } from '../crf-texts';
import { TextInputBase } from './text-input-base';
import type { ControlProps } from './widget-types';

/**
 * 数字: min and max come from validate.min/max (forms §5). They bound the arrow-key steps and are
 * announced to assistive technology, but a typed value is never clamped: a nurse's 300 must stay 300
 * for the engine to flag (不能大于250), not turn silently into 250.
 */
export function NumberWidget(props: ControlProps) {
  const { format, validate, placeholder } = props.node.option;
  const min = toNumber(validate?.min);
  const max = toNumber(validate?.max);
  const hint = min !== null || max !== null ? CRF_T.numberRange(min, max) : undefined;
  return (
    <TextInputBase
      {...props}
      inputMode="decimal"
      placeholder={placeholder || hint}
      extra={{ 'aria-valuemin': min ?? undefined, 'aria-valuemax': max ?? undefined, role: 'spinbutton' }}
      formatOnBlur={format ? (text) => formatItemValue('number', format, text) : undefined}
      onKeyDown={(event, text) => {
        if (event.key !== 'ArrowUp' && event.key !== 'ArrowDown') return;
        const current = text.trim() === '' ? (min ?? 0) - (event.key === 'ArrowUp' ? 1 : -1) : toNumber(text);
        if (current === null) return;
        event.preventDefault();
        let next = current + (event.key === 'ArrowUp' ? 1 : -1);
        if (min !== null && next < min) next = min;
        if (max !== null && next > max) next = max;
        props.onChange(toPlainDecimal(next) ?? String(next));
      }}
    />
  );
}
