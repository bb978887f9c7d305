import { useEffect, useId, useRef, useState, type KeyboardEvent } from 'react';
import { Button, DatePicker, Input, Popover, Select, type RefSelectProps } from 'antd';
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
  nowString,
  todayString,
  type DateFormat,
} from '@ecrf/core';
import { useCrfStore } from '../crf-store';
import { useTouchScreen } from '../touch';
import { CRF_T } from '../crf-texts';
import {
  acceptDateText,
  isDateTextComplete,
  moveCalendarCursor,
  toDayjs,
  toDayjsFormat,
  type CalendarPicker,
} from './date-utils';
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
  // The calendar's keyboard cursor: the cell the arrow keys have moved to, shown selected until Enter takes it.
  const [cursor, setCursor] = useState<Dayjs | null>(null);
  // Whether the pull-down was opened from the keyboard: its first list takes the focus, and gives it back.
  const [byKeyboard, setByKeyboard] = useState(false);
  const buttonRef = useRef<HTMLButtonElement>(null);
  const keysId = useId();
  const shown = draft ?? displayDate(text);
  const dayjsFormat = toDayjsFormat(format);
  const calendarPicker: CalendarPicker = format === 'yyyy' ? 'year' : format === 'yyyy-MM' ? 'month' : 'date';

  const setCalendarOpen = (next: boolean) => {
    setOpen(next);
    if (!next) setCursor(null);
  };

  const accept = (next: string) => {
    setDraft(null);
    setRejected(false);
    setCalendarOpen(false);
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

  // The cursor starts on the value, else on today (now, for a date-time) in the study's zone.
  const cursorStart = () =>
    toDayjs(text, format) ??
    toDayjs(nowString(store.context.now, store.context.timeZone).slice(0, format.length), format);

  /**
   * The calendar from the keyboard (the focus stays on the button): Enter or Space opens it, the arrows, Page
   * Up/Down, Home and End move the cursor, Enter or Space takes the cursor's date, Escape closes, Tab leaves.
   */
  const onCalendarKey = (event: KeyboardEvent<HTMLElement>) => {
    const activate = event.key === 'Enter' || event.key === ' ';
    if (!open) {
      if (!activate) return;
      // Handled here rather than by the click the key would cause, which has no cursor.
      event.preventDefault();
      setCursor(cursorStart());
      setOpen(true);
      return;
    }
    if (event.key === 'Escape') {
      // A dialog around the form (the preview) must not close with the calendar.
      event.preventDefault();
      event.stopPropagation();
      setCalendarOpen(false);
    } else if (event.key === 'Tab') {
      setCalendarOpen(false);
    } else if (activate) {
      event.preventDefault();
      if (!cursor) setCalendarOpen(false);
      else if (!disabledDate(cursor)) accept(cursor.format(dayjsFormat));
    } else {
      const from = cursor ?? cursorStart();
      const next = from && moveCalendarCursor(from, event.key, event.shiftKey, calendarPicker);
      if (next) {
        event.preventDefault();
        setCursor(next);
      }
    }
  };

  const pickerButton = (
    <Button
      ref={buttonRef}
      type="text"
      size="small"
      className="crf-date-button"
      icon={<CalendarOutlined />}
      aria-label={CRF_T.pickDate}
      aria-expanded={open}
      aria-describedby={picker === 'calendar' ? keysId : undefined}
      disabled={disabled}
      // The text box's wrapper would focus the text box on this click (and a touch screen would raise its
      // keyboard over the calendar): the click stays on the button, and on touch an open keyboard is put away.
      onClick={(event) => {
        event.stopPropagation();
        if (touch && document.activeElement instanceof HTMLElement) document.activeElement.blur();
        // A click from Enter or Space carries no pointer detail.
        setByKeyboard(event.detail === 0);
        // The pull-down's popover opens itself on click; the calendar anchor is opened from here.
        if (picker === 'calendar') setCalendarOpen(!open);
      }}
      onKeyDown={picker === 'calendar' ? onCalendarKey : undefined}
      // Space clicks a button when it is released: the key was handled when pressed.
      onKeyUp={picker === 'calendar' && open ? (event) => event.key === ' ' && event.preventDefault() : undefined}
    />
  );

  const pickPart = (next: string) => {
    accept(next);
    if (byKeyboard) buttonRef.current?.focus();
  };

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
              onPick={pickPart}
              onEscape={() => {
                setOpen(false);
                buttonRef.current?.focus();
              }}
              autoFocus={byKeyboard}
              trigger={pickerButton}
            />
          )
        }
        onChange={(event) => onType(event.target.value)}
        onBlur={onLeave}
      />
      {picker === 'calendar' && (
        <>
          <CalendarAnchor
            format={format}
            value={text}
            cursor={cursor}
            open={open}
            onOpenChange={setCalendarOpen}
            disabledDate={disabledDate}
            onPick={accept}
          />
          <span id={keysId} className="sr-only">
            {CRF_T.calendarKeys}
          </span>
          <span className="sr-only" aria-live="polite">
            {open && cursor ? cursor.format(dayjsFormat) : ''}
          </span>
        </>
      )}
      {rejected && <div className="crf-field-error">{CRF_MSG.dateInvalid}</div>}
    </div>
  );
}

interface CalendarAnchorProps {
  format: DateFormat;
  value: string;
  /** The keyboard's cursor: shown as the selected cell. */
  cursor: Dayjs | null;
  open: boolean;
  onOpenChange: (open: boolean) => void;
  disabledDate: (day: Dayjs) => boolean;
  onPick: (value: string) => void;
}

/** antd's picker without its own input: an invisible anchor under the text box that only shows the panel. */
function CalendarAnchor({ format, value, cursor, open, onOpenChange, disabledDate, onPick }: CalendarAnchorProps) {
  const dayjsFormat = toDayjsFormat(format);
  const withTime = format.includes('HH');
  return (
    <DatePicker
      className="crf-date-anchor"
      open={open}
      onOpenChange={onOpenChange}
      // The panel follows its value to the value's month (or year): the cursor's, while the keyboard leads.
      value={cursor ?? toDayjs(value, format)}
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
  onEscape: () => void;
  /** Opened from the keyboard: the year list takes the focus. */
  autoFocus: boolean;
  trigger: React.ReactNode;
}

const pad = (n: number) => String(n).padStart(2, '0');
const YEARS = [UNKNOWN_YEAR, ...Array.from({ length: YEAR_MAX - YEAR_MIN + 1 }, (_, i) => String(YEAR_MAX - i))];
const MONTHS = [UNKNOWN_PART, ...Array.from({ length: 12 }, (_, i) => pad(i + 1))];
const partLabel = (part: string) => (part.startsWith(UNKNOWN_PART) ? `${CRF_T.unknown}（${part}）` : part);

/** The pull-down of a partial date (下拉日期): year, month and day, each may be 未知 (UKUK / UK). */
function PartsPicker({ format, value, open, onOpenChange, onPick, onEscape, autoFocus, trigger }: PartsPickerProps) {
  return (
    <Popover
      open={open}
      onOpenChange={onOpenChange}
      trigger="click"
      placement="bottomRight"
      destroyOnHidden
      content={<PartsPanel format={format} value={value} onPick={onPick} onEscape={onEscape} autoFocus={autoFocus} />}
    >
      {trigger}
    </Popover>
  );
}

interface PartsPanelProps {
  format: DateFormat;
  value: string;
  onPick: (value: string) => void;
  onEscape: () => void;
  autoFocus: boolean;
}

function PartsPanel({ format, value, onPick, onEscape, autoFocus }: PartsPanelProps) {
  const count = format === 'yyyy' ? 1 : format === 'yyyy-MM' ? 2 : 3;
  const initial = value.split(' ')[0]!.split('-');
  const [year, setYear] = useState<string | undefined>(initial[0] || undefined);
  const [month, setMonth] = useState<string | undefined>(initial[1] || undefined);
  const [day, setDay] = useState<string | undefined>(initial[2] || undefined);
  const yearRef = useRef<RefSelectProps>(null);
  useEffect(() => {
    // Once the popover is placed: a focus while it is still being positioned would be lost.
    if (!autoFocus) return;
    const timer = setTimeout(() => yearRef.current?.focus());
    return () => clearTimeout(timer);
  }, [autoFocus]);
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
      ref={label === CRF_T.year ? yearRef : undefined}
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
    <div
      className="crf-date-parts"
      onKeyDown={(event) => {
        // Escape with a list open closes the list (antd); with none open, the pull-down, back to its button.
        if (event.key === 'Escape' && !document.querySelector('.crf-date-part.ant-select-open')) onEscape();
      }}
    >
      {select(CRF_T.year, YEARS, year, setYear)}
      {count > 1 && select(CRF_T.month, MONTHS, month, setMonth)}
      {count > 2 && select(CRF_T.day, days, day, setDay)}
      <Button type="primary" size="small" disabled={!valid} onClick={() => composed && onPick(composed)}>
        {CRF_T.ok}
      </Button>
    </div>
  );
}
