import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import dayjs, { type Dayjs } from 'dayjs';
import { renderWithProviders } from '../test/render';
import { KeyboardDatePicker } from './keyboard-date-picker';

afterEach(cleanup);

function setup(value: Dayjs | null, disabledDate?: (day: Dayjs) => boolean) {
  const onChange = vi.fn();
  renderWithProviders(<KeyboardDatePicker value={value} onChange={onChange} disabledDate={disabledDate} />);
  const input = screen.getByRole('textbox') as HTMLInputElement;
  fireEvent.mouseDown(input);
  fireEvent.focus(input);
  fireEvent.click(input);
  return { input, onChange };
}

const key = (input: HTMLElement, name: string) => fireEvent.keyDown(input, { key: name });

describe('date picker keys', () => {
  it('↓ enters the calendar on the value, arrows and PageDown move the cursor, Enter takes it', async () => {
    const { input, onChange } = setup(dayjs('1960-03-15'));
    key(input, 'ArrowDown');
    key(input, 'ArrowRight');
    key(input, 'ArrowDown');
    await waitFor(() => expect(input.value).toBe('1960-03-23'));
    key(input, 'PageDown');
    await waitFor(() => expect(input.value).toBe('1960-04-23'));
    key(input, 'Enter');
    expect(onChange).toHaveBeenCalledTimes(1);
    expect((onChange.mock.calls[0]![0] as Dayjs).format('YYYY-MM-DD')).toBe('1960-04-23');
  });

  it('arrows without ↓ first leave the typed text alone, and a disabled day is not taken', () => {
    const { input, onChange } = setup(null, (day) => day.isAfter(dayjs('2000-01-01')));
    key(input, 'ArrowLeft');
    expect(input.value).toBe('');
    key(input, 'ArrowDown');
    key(input, 'Enter');
    // Today is after 2000-01-01: refused, nothing chosen.
    expect(onChange).not.toHaveBeenCalled();
  });
});
