import { dateFormatOf } from '@ecrf/core';
import { DateEntry } from './date-entry';
import type { ControlProps } from './widget-types';

/** 下拉日期: a date whose year, month or day may be unknown (2024-UK-UK), typed or chosen from pull-downs. */
export function PartialDateWidget(props: ControlProps) {
  return <DateEntry {...props} format={dateFormatOf(props.node)} allowUnknown picker="parts" />;
}
