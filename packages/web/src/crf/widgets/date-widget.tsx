import { dateFormatOf } from '@ecrf/core';
import { DateEntry } from './date-entry';
import type { ControlProps } from './widget-types';

/** 日期: typed (UKUK/UK allowed) or picked; pastTime/futureTime grey out days in the calendar, the engine judges typed ones. */
export function DateWidget(props: ControlProps) {
  return <DateEntry {...props} format={dateFormatOf(props.node)} allowUnknown picker="calendar" />;
}
