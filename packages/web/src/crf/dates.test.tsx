import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { initialValues } from '@ecrf/core';
import { blur, form, item, NOW, renderCrf, typeInto } from './test/crf-test-utils';

afterEach(cleanup);

const valueOf = (label: string) => (screen.getByLabelText(label) as HTMLInputElement).value;

function pickOption(label: string, option: string) {
  fireEvent.mouseDown(screen.getByLabelText(label));
  const options = document.querySelectorAll(`.ant-select-item-option[title="${option}"]`);
  fireEvent.click(options[options.length - 1]!);
}

describe('date entry (forms §5)', () => {
  it('DATE-02: unknown parts are written UKUK and UK (typed in any case)', () => {
    const { harness } = renderCrf(form([item('partialDate', 'd', '发病日期'), item('date', 'b', '出生日期')]));
    typeInto('发病日期', '2024-uk-uk');
    expect(harness.last().d).toBe('2024-UK-UK');
    expect(valueOf('发病日期')).toBe('2024-UK-UK');
    typeInto('出生日期', 'UKUK-03-15');
    expect(harness.last().b).toBe('UKUK-03-15');
  });

  it('DATE-05: the value is emitted once the text is 10 characters long, not before', () => {
    const { harness } = renderCrf(form([item('date', 'd', '访视日期')]));
    typeInto('访视日期', '2024-06-0');
    expect(harness.changes).toHaveLength(0);
    expect(valueOf('访视日期')).toBe('2024-06-0');
    typeInto('访视日期', '2024-06-01');
    expect(harness.changes).toHaveLength(1);
    expect(harness.last().d).toBe('2024-06-01');
  });

  it('DATE-03: year 1900-2100, month 1-12, day 1-31; otherwise the last valid value comes back', () => {
    const { harness } = renderCrf(form([item('partialDate', 'd', '发病日期')]), { d: '2020-01-02' });
    for (const bad of ['1899-01-01', '2101-01-01', '2024-13-01', '2024-00-10', '2024-01-32', '2023-02-29']) {
      typeInto('发病日期', bad);
      expect(valueOf('发病日期'), bad).toBe('2020-01-02');
      expect(screen.getByText('请输入正确的日期')).toBeTruthy();
    }
    expect(harness.changes).toHaveLength(0);
    typeInto('发病日期', '2100-12-31');
    expect(harness.last().d).toBe('2100-12-31');
    expect(screen.queryByText('请输入正确的日期')).toBeNull();
  });

  it('DATE-03: leaving the field with an unfinished date reverts it too', () => {
    const { harness } = renderCrf(form([item('date', 'd', '访视日期')]), { d: '2024-06-01' });
    typeInto('访视日期', '2024-07');
    blur('访视日期');
    expect(valueOf('访视日期')).toBe('2024-06-01');
    expect(harness.changes).toHaveLength(0);
  });

  it('DATE-04: yyyy and yyyy-MM complete at their own length; hour variants at theirs', () => {
    const { harness } = renderCrf(
      form([
        item('partialDate', 'y', '年份', { format: 'yyyy' }),
        item('partialDate', 'm', '年月', { format: 'yyyy-MM' }),
        item('datetime', 't', '时间', { format: 'yyyy-MM-dd HH:mm' }),
      ]),
    );
    typeInto('年份', '2024');
    typeInto('年月', '2024-UK');
    typeInto('时间', '2024-06-01');
    expect(harness.last()).toEqual({ y: '2024', m: '2024-UK' });
    typeInto('时间', '2024-06-01 08:30');
    expect(harness.last().t).toBe('2024-06-01 08:30');
  });

  it('DATE-01: a datetime takes no unknown parts; a date item with itemType datetime takes a time', () => {
    const { harness } = renderCrf(
      form([item('datetime', 't', '时间'), item('date', 'd', '采样', { itemType: 'datetime' })]),
      { t: '2024-06-01 08:00:00' },
    );
    typeInto('时间', '2024-UK-01 08:00:00');
    expect(valueOf('时间')).toBe('2024-06-01 08:00:00');
    typeInto('采样', '2024-06-01 09:10:11');
    expect(harness.last().d).toBe('2024-06-01 09:10:11');
  });

  it('DATE-06/DATE-07: pastTime refuses future dates, futureTime past ones (today passes both)', () => {
    renderCrf(
      form([
        item('date', 'birth', '出生日期', { showStyle: 'pastTime' }),
        item('date', 'next', '下次随访', { showStyle: 'futureTime' }),
      ]),
    );
    typeInto('出生日期', '2024-06-16');
    expect(screen.getByText('日期不能晚于今天')).toBeTruthy();
    typeInto('出生日期', '2024-06-15');
    expect(screen.queryByText('日期不能晚于今天')).toBeNull();
    typeInto('下次随访', '2024-06-14');
    expect(screen.getByText('日期不能早于今天')).toBeTruthy();
    typeInto('下次随访', '2024-UK-UK');
    expect(screen.queryByText('日期不能早于今天')).toBeNull();
  });

  it('DATE-08: defaultValue "now" fills today, or the current date-time, in the study zone', () => {
    const definition = form([
      item('date', 'd', '签名日期', { defaultValue: 'now' }),
      item('datetime', 't', '访视时间', { defaultValue: 'now' }),
      item('time', 'h', '采血时间', { defaultValue: 'now', format: 'Hour' }),
    ]);
    renderCrf(definition, initialValues(definition, { now: NOW }));
    expect(valueOf('签名日期')).toBe('2024-06-15');
    expect(valueOf('访视时间')).toBe('2024-06-15 10:30:00');
    expect(valueOf('采血时间')).toBe('10:30');
  });

  it('DATE-11: a date containing 1900 shows empty', () => {
    renderCrf(form([item('date', 'd', '日期')]), { d: '1900-01-01' });
    expect(valueOf('日期')).toBe('');
  });

  it('DATE-02: the pull-down of a partial date offers 未知 for each part', () => {
    const { harness } = renderCrf(form([item('partialDate', 'd', '发病日期')]));
    fireEvent.click(screen.getByRole('button', { name: '选择日期' }));
    pickOption('年', '2024');
    pickOption('月', '未知（UK）');
    pickOption('日', '未知（UK）');
    fireEvent.click(screen.getByRole('button', { name: '确定' }));
    expect(harness.last().d).toBe('2024-UK-UK');
  });
});

describe('time', () => {
  it('DATE-09: the time picker shows HH:mm:ss, or HH:mm when format is Hour', () => {
    const { harness } = renderCrf(
      form([item('time', 'a', '服药时间'), item('time', 'b', '采血时间', { format: 'Hour' })]),
      { a: '08:05:09', b: '07:45' },
    );
    expect(valueOf('服药时间')).toBe('08:05:09');
    expect(valueOf('采血时间')).toBe('07:45');
    const input = screen.getByLabelText('采血时间');
    fireEvent.mouseDown(input);
    fireEvent.focus(input);
    fireEvent.change(input, { target: { value: '09:15' } });
    fireEvent.keyDown(input, { key: 'Enter', keyCode: 13 });
    expect(harness.last().b).toBe('09:15');
  });
});

describe('calendar from the keyboard', () => {
  const calendarButton = () => screen.getByRole('button', { name: '选择日期' });
  const key = (k: string, extra: Record<string, unknown> = {}) =>
    fireEvent.keyDown(calendarButton(), { key: k, ...extra });
  const popupShown = () => document.querySelector('.crf-date-popup:not(.ant-picker-dropdown-hidden)') !== null;

  it('the calendar button follows the text box in the tab order, named 选择日期 with how its keys work', () => {
    renderCrf(form([item('date', 'd', '访视日期')]));
    const button = calendarButton() as HTMLButtonElement;
    expect(button.tabIndex).toBe(0);
    expect(button.getAttribute('aria-expanded')).toBe('false');
    const hint = document.getElementById(button.getAttribute('aria-describedby')!);
    expect(hint?.textContent).toContain('方向键选择日期');
  });

  it('Enter opens the calendar on the value; arrows, Page Down and Enter pick a date, the focus staying on the button', () => {
    const { harness } = renderCrf(form([item('date', 'd', '访视日期')]), { d: '2024-06-10' });
    calendarButton().focus();
    key('Enter');
    expect(popupShown()).toBe(true);
    expect(calendarButton().getAttribute('aria-expanded')).toBe('true');
    key('ArrowRight');
    key('ArrowDown');
    expect(document.querySelector('[aria-live="polite"]')?.textContent).toBe('2024-06-18');
    key('PageDown');
    key('Enter');
    expect(harness.last().d).toBe('2024-07-18');
    expect(valueOf('访视日期')).toBe('2024-07-18');
    expect(document.activeElement).toBe(calendarButton());
    expect(calendarButton().getAttribute('aria-expanded')).toBe('false');
  });

  it('an empty date starts on today in the study zone; Escape closes without a change', () => {
    const { harness } = renderCrf(form([item('date', 'd', '访视日期')]));
    key(' ');
    expect(document.querySelector('[aria-live="polite"]')?.textContent).toBe('2024-06-15');
    key('ArrowLeft');
    key('Escape');
    expect(calendarButton().getAttribute('aria-expanded')).toBe('false');
    expect(harness.changes).toHaveLength(0);
  });

  it('a date limited to the past refuses a future day from the keyboard too', () => {
    const { harness } = renderCrf(form([item('date', 'd', '出生日期', { showStyle: 'pastTime' })]), {
      d: '2024-06-15',
    });
    key('Enter');
    key('ArrowRight');
    key('Enter');
    expect(harness.changes).toHaveLength(0);
    key('ArrowLeft');
    key('ArrowLeft');
    key('Enter');
    expect(harness.last().d).toBe('2024-06-14');
  });

  it('the partial-date pull-down opened from the keyboard puts the focus on its year list', async () => {
    renderCrf(form([item('partialDate', 'd', '发病日期')]));
    // Enter or Space on a button clicks it without a pointer (detail 0).
    fireEvent.click(calendarButton(), { detail: 0 });
    await waitFor(() => expect(document.activeElement?.getAttribute('aria-label')).toBe('年'));
    expect(document.activeElement?.closest('.crf-date-parts')).toBeTruthy();
    // Escape (no list open) closes the pull-down and gives the focus back to the button.
    fireEvent.keyDown(document.activeElement!, { key: 'Escape' });
    await waitFor(() => expect(document.activeElement).toBe(calendarButton()));
  });
});
