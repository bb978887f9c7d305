import { dateFormatOf } from '@ecrf/core';
import { DateEntry } from './date-entry';
import type { ControlProps } from './widget-types';

/** 日期时间: yyyy-MM-dd HH:mm:ss unless format says otherwise; no unknown parts. */
export function DatetimeWidget(props: ControlProps) {
  return <DateEntry {...props} format={dateFormatOf(props.node)} allowUnknown={false} picker="calendar" />;
}
