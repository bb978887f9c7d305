import type { HTMLAttributes, KeyboardEvent } from 'react';
import { Input } from 'antd';
import type { ControlProps } from './widget-types';
import { asText, placeholderOf } from './widget-utils';

export interface TextInputBaseProps extends ControlProps {
  /** Filters each keystroke (real keeps only digits and one point, forms §5). */
  sanitize?: (text: string) => string;
  /** Reformats the text when the user leaves the field (converter rules, input patterns). */
  formatOnBlur?: (text: string) => string;
  inputMode?: HTMLAttributes<HTMLInputElement>['inputMode'];
  placeholder?: string;
  onKeyDown?: (event: KeyboardEvent<HTMLInputElement>, text: string) => void;
  extra?: Record<string, string | number | undefined>;
}

/** The one-line text box behind input, text, int, real and number items. The value stays text as typed. */
export function TextInputBase(props: TextInputBaseProps) {
  const {
    node,
    id,
    value,
    disabled,
    status,
    onChange,
    onBlur,
    ariaLabel,
    sanitize,
    formatOnBlur,
    inputMode,
    placeholder,
    onKeyDown,
    extra,
  } = props;
  const text = asText(value);
  return (
    <Input
      id={id}
      value={text}
      disabled={disabled}
      status={status}
      placeholder={disabled ? undefined : (placeholder ?? placeholderOf(node))}
      inputMode={inputMode}
      aria-label={ariaLabel}
      autoComplete="off"
      {...extra}
      onChange={(event) => {
        const next = sanitize ? sanitize(event.target.value) : event.target.value;
        if (next !== text) onChange(next);
      }}
      onKeyDown={onKeyDown ? (event) => onKeyDown(event, text) : undefined}
      onBlur={() => {
        if (formatOnBlur) {
          const formatted = formatOnBlur(text);
          if (formatted !== text) onChange(formatted);
        }
        onBlur();
      }}
    />
  );
}
