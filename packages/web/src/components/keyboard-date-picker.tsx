import { useId, useState, type KeyboardEvent } from 'react';
import { DatePicker, type DatePickerProps } from 'antd';
import dayjs, { type Dayjs } from 'dayjs';
import { moveCalendarCursor } from '../crf/widgets/date-utils';

const KEYS_HINT = '可直接输入日期；日历打开时按下方向键进入日历，方向键选择日期，翻页键换月，回车确定，Esc 关闭';

type KeyboardDatePickerProps = Omit<
  DatePickerProps,
  'open' | 'onOpenChange' | 'onKeyDown' | 'picker' | 'value' | 'onChange' | 'multiple' | 'defaultValue' | 'onOk'
> & {
  value?: Dayjs | null;
  onChange?: (date: Dayjs | null) => void;
};

/**
 * antd's date picker, whose panel has no keyboard of its own, with the calendar keys of the CRF's date
 * items: while the panel is open, ↓ or ↑ moves a cursor into the calendar (shown as the selected day),
 * the arrows, PageUp/PageDown, Home and End move it, Enter takes it, Esc closes without a change.
 * Typing a date into the box works as before: any other key leaves the cursor.
 */
export function KeyboardDatePicker({ value, onChange, disabledDate, ...rest }: KeyboardDatePickerProps) {
  const [open, setOpen] = useState(false);
  const [cursor, setCursor] = useState<Dayjs | null>(null);
  const hintId = useId();

  const close = () => {
    setOpen(false);
    setCursor(null);
  };

  const onKeyDown = (event: KeyboardEvent<HTMLElement>) => {
    if (!open) return;
    const engaging = event.key === 'ArrowDown' || event.key === 'ArrowUp';
    if (!cursor && !engaging) return;
    if (cursor && event.key === 'Enter') {
      event.preventDefault();
      if (disabledDate?.(cursor, { type: 'date' } as never)) return;
      onChange?.(cursor);
      close();
      return;
    }
    const from = cursor ?? value ?? dayjs();
    const next = cursor ? moveCalendarCursor(from, event.key, event.shiftKey, 'date') : from;
    if (next) {
      event.preventDefault();
      setCursor(next);
    } else if (event.key.length === 1) {
      setCursor(null);
    }
  };

  return (
    <>
      <DatePicker
        {...rest}
        open={open}
        onOpenChange={(next) => (next ? setOpen(true) : close())}
        value={cursor ?? value ?? null}
        disabledDate={disabledDate}
        onChange={(date: Dayjs | null) => {
          onChange?.(date);
          setCursor(null);
        }}
        onKeyDown={onKeyDown}
        aria-describedby={hintId}
      />
      <span id={hintId} className="sr-only">
        {KEYS_HINT}
      </span>
      <span className="sr-only" aria-live="polite">
        {cursor ? cursor.format('YYYY-MM-DD') : ''}
      </span>
    </>
  );
}
