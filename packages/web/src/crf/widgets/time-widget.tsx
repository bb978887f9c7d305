import { TimePicker } from 'antd';
import { timeFormatOf } from '@ecrf/core';
import { useTouchScreen } from '../touch';
import { toDayjs } from './date-utils';
import type { ControlProps } from './widget-types';
import { asText, placeholderOf } from './widget-utils';

/** 时间: HH:mm:ss, or HH:mm when format is Hour (forms §5); stored as that text. */
export function TimeWidget({ node, id, value, disabled, status, onChange, onBlur, ariaLabel }: ControlProps) {
  const format = timeFormatOf(node);
  const text = asText(value);
  // On a touch screen the columns are picked by finger; a focused text box would cover them with the keyboard.
  const touch = useTouchScreen();
  return (
    <TimePicker
      id={id}
      className="crf-picker"
      format={format}
      value={toDayjs(text, format)}
      disabled={disabled}
      status={status}
      placeholder={disabled ? '' : placeholderOf(node, format)}
      aria-label={ariaLabel}
      needConfirm={false}
      inputReadOnly={touch}
      onChange={(time) => onChange(time ? time.format(format) : '')}
      onBlur={onBlur}
    />
  );
}
