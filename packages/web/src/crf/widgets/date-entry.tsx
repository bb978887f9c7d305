import { useState } from 'react';
import { Button, DatePicker, Input, Popover, Select } from 'antd';
import { CalendarOutlined } from '@ant-design/icons';
import type { Dayjs } from 'dayjs';
import {
  CRF_MSG,
  UNKNOWN_PART,
  UNKNOWN_YEAR,
  YEAR_MAX,
  YEAR_MIN,
  daysInMonth,
  displayDate,
  isValidPartialDate,
  todayString,
  type DateFormat,
} from '@ecrf/core';
import { useCrfStore } from '../crf-store';
import { useTouchScreen } from '../touch';
import { CRF_T } from '../crf-texts';
import { acceptDateText, isDateTextComplete, toDayjs, toDayjsFormat } from './date-utils';
import type { ControlProps } from './widget-types';
import { asText } from './widget-utils';

export interface DateEntryProps extends ControlProps {
  format: DateFormat;
  /** Whether UKUK/UK parts are allowed (date and partial date items; not datetime). */
  allowUnknown: boolean;
  /** A calendar for whole dates, or year/month/day pull-downs that offer 未知. */
  picker: 'calendar' | 'parts';
}

/**
 * Date text entry of forms §5: typed text is held as a draft until it is as long as the format
 * (10 characters for yyyy-MM-dd); then a valid date (UKUK/UK parts allowed where the item allows
 * them) becomes the value and an invalid one reverts to the last valid value. Leaving the field
 * with an unfinished draft reverts too. Dates containing 1900 show empty (forms §9).
 */
export function DateEntry({
  node,
  id,
  value,
  disabled,
  status,
  onChange,
  onBlur,
  ariaLabel,
  format,
  allowUnknown,
  picker,
}: DateEntryProps) {
  const store = useCrfStore();
  const touch = useTouchScreen();
  const text = asText(value);
  const [draft, setDraft] = useState<string | null>(null);
  const [rejected, setRejected] = useState(false);
  const [open, setOpen] = useState(false);
  const shown = draft ?? displayDate(text);

  const accept = (next: string) => {
    setDraft(null);
    setRejected(false);
    setOpen(false);
    if (next !== text) onChange(next);
  };

  const onType = (raw: string) => {
    const typed = raw.toUpperCase();
    setRejected(false);
    if (typed === '') {
      accept('');
      return;
    }
    if (!isDateTextComplete(typed, format)) {
      setDraft(typed);
      return;
    }
    const accepted = acceptDateText(text, typed, format, allowUnknown);
    accept(accepted);
    if (accepted !== typed) setRejected(true);
  };

  const onLeave = () => {
    if (draft !== null) {
      setDraft(null);
      setRejected(true);
    }
    onBlur();
  };

  const today = todayString(store.context.now, store.context.timeZone);
  const showStyle = node.option.showStyle;
  const disabledDate = (day: Dayjs) => {
    const date = day.format('YYYY-MM-DD');
    return (showStyle === 'pastTime' && date > today) || (showStyle === 'futureTime' && date < today);
  };

  const pickerButton = (
    <Button
      type="text"
      size="small"
      className="crf-date-button"
      icon={<CalendarOutlined />}
      aria-label={CRF_T.pickDate}
      disabled={disabled}
      tabIndex={-1}
      // The text box's wrapper would focus the text box on this click (and a touch screen would raise its
      // keyboard over the calendar): the click stays on the button, and on touch an open keyboard is put away.
      onClick={(event) => {
        event.stopPropagation();
        if (touch && document.activeElement instanceof HTMLElement) document.activeElement.blur();
        // The pull-down's popover opens itself on click; the calendar anchor is opened from here.
        if (picker === 'calendar') setOpen((current) => !current);
      }}
    />
  );

  return (
    <div className="crf-date">
      <Input
        id={id}
        value={shown}
        disabled={disabled}
        status={rejected ? 'error' : status}
        placeholder={disabled ? undefined : node.option.placeholder || CRF_T.datePlaceholder(format)}
        title={allowUnknown ? CRF_T.dateHint : undefined}
        aria-label={ariaLabel}
        autoComplete="off"
        maxLength={format.length + 2}
        suffix={
          picker === 'calendar' ? (
            pickerButton
          ) : (
            <PartsPicker
              format={format}
              value={text}
              open={open}
              onOpenChange={setOpen}
              onPick={accept}
              trigger={pickerButton}
            />
          )
        }
        onChange={(event) => onType(event.target.value)}
        onBlur={onLeave}
      />
      {picker === 'calendar' && (
        <CalendarAnchor
          format={format}
          value={text}
          open={open}
          onOpenChange={setOpen}
          disabledDate={disabledDate}
          onPick={accept}
        />
      )}
      {rejected && <div className="crf-field-error">{CRF_MSG.dateInvalid}</div>}
    </div>
  );
}

interface CalendarAnchorProps {
  format: DateFormat;
  value: string;
  open: boolean;
  onOpenChange: (open: boolean) => void;
  disabledDate: (day: Dayjs) => boolean;
  onPick: (value: string) => void;
}

/** antd's picker without its own input: an invisible anchor under the text box that only shows the panel. */
function CalendarAnchor({ format, value, open, onOpenChange, disabledDate, onPick }: CalendarAnchorProps) {
  const dayjsFormat = toDayjsFormat(format);
  const withTime = format.includes('HH');
  return (
    <DatePicker
      className="crf-date-anchor"
      open={open}
      onOpenChange={onOpenChange}
      value={toDayjs(value, format)}
      picker={format === 'yyyy' ? 'year' : format === 'yyyy-MM' ? 'month' : 'date'}
      showTime={withTime ? { format: format.slice(11) } : false}
      // The anchor is never typed into: a focused input here would only raise a touch keyboard over the panel.
      inputReadOnly
      classNames={{ popup: { root: 'crf-date-popup' } }}
      format={dayjsFormat}
      disabledDate={disabledDate}
      tabIndex={-1}
      aria-hidden
      placement="bottomLeft"
      onChange={(day: Dayjs | null) => onPick(day ? day.format(dayjsFormat) : '')}
    />
  );
}

interface PartsPickerProps {
  format: DateFormat;
  value: string;
  open: boolean;
  onOpenChange: (open: boolean) => void;
  onPick: (value: string) => void;
  trigger: React.ReactNode;
}

const pad = (n: number) => String(n).padStart(2, '0');
const YEARS = [UNKNOWN_YEAR, ...Array.from({ length: YEAR_MAX - YEAR_MIN + 1 }, (_, i) => String(YEAR_MAX - i))];
const MONTHS = [UNKNOWN_PART, ...Array.from({ length: 12 }, (_, i) => pad(i + 1))];
const partLabel = (part: string) => (part.startsWith(UNKNOWN_PART) ? `${CRF_T.unknown}（${part}）` : part);

/** The pull-down of a partial date (下拉日期): year, month and day, each may be 未知 (UKUK / UK). */
function PartsPicker({ format, value, open, onOpenChange, onPick, trigger }: PartsPickerProps) {
  return (
    <Popover
      open={open}
      onOpenChange={onOpenChange}
      trigger="click"
      placement="bottomRight"
      destroyOnHidden
      content={<PartsPanel format={format} value={value} onPick={onPick} />}
    >
      {trigger}
    </Popover>
  );
}

function PartsPanel({ format, value, onPick }: { format: DateFormat; value: string; onPick: (value: string) => void }) {
  const count = format === 'yyyy' ? 1 : format === 'yyyy-MM' ? 2 : 3;
  const initial = value.split(' ')[0]!.split('-');
  const [year, setYear] = useState<string | undefined>(initial[0] || undefined);
  const [month, setMonth] = useState<string | undefined>(initial[1] || undefined);
  const [day, setDay] = useState<string | undefined>(initial[2] || undefined);
  const maxDay =
    month && month !== UNKNOWN_PART
      ? daysInMonth(year && year !== UNKNOWN_YEAR ? Number(year) : 2000, Number(month))
      : 31;
  const days = [UNKNOWN_PART, ...Array.from({ length: maxDay }, (_, i) => pad(i + 1))];
  const parts = [year, month, day].slice(0, count);
  const composed = parts.every((p) => p !== undefined) ? parts.join('-') : null;
  const valid = composed !== null && isValidPartialDate(composed, format);
  const select = (label: string, list: string[], current: string | undefined, set: (v: string) => void) => (
    <Select
      aria-label={label}
      className="crf-date-part"
      showSearch
      value={current}
      placeholder={label}
      popupMatchSelectWidth={false}
      options={list.map((part) => ({ value: part, label: partLabel(part) }))}
      onChange={set}
    />
  );
  return (
    <div className="crf-date-parts">
      {select(CRF_T.year, YEARS, year, setYear)}
      {count > 1 && select(CRF_T.month, MONTHS, month, setMonth)}
      {count > 2 && select(CRF_T.day, days, day, setDay)}
      <Button type="primary" size="small" disabled={!valid} onClick={() => composed && onPick(composed)}>
        {CRF_T.ok}
      </Button>
    </div>
  );
}
