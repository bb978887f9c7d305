import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { DEFAULT_MISSING_CODES } from '@ecrf/core';
import type { DoubleEntry, DoubleEntryCompare, MyDoubleEntry } from '../../../api/double-entry.api';
import type * as MissingCodesApi from '../../../api/missing-codes.api';
import { form, item } from '../../../crf/test/crf-test-utils';
import { renderWithProviders } from '../../../test/render';
import { DoubleEntryPanel } from './double-entry-panel';
import { DoubleEntryReconcile } from './double-entry-reconcile';

const api = vi.hoisted(() => ({
  forms: vi.fn(),
  configure: vi.fn(),
  mine: vi.fn(),
  save: vi.fn(),
  done: vi.fn(),
  compare: vi.fn(),
  reconcile: vi.fn(),
}));
vi.mock('../../../api/double-entry.api', async (importOriginal) => ({
  ...(await importOriginal<object>()),
  doubleEntryApi: api,
}));
// The study's 缺失原因 codes are the defaults (未查(ND), 不适用(NA), …).
vi.mock('../../../api/missing-codes.api', async (importOriginal) => ({
  ...(await importOriginal<typeof MissingCodesApi>()),
  useMissingCodes: () => DEFAULT_MISSING_CODES,
}));

afterEach(() => {
  cleanup();
  vi.clearAllMocks();
});

const ok = <T,>(data: T, msg = '') => ({ code: 200, msg, data });
const definition = form([
  item('text', 'sbp', '收缩压'),
  item('text', 'dbp', '舒张压'),
  item('int', 'hr', '心率'),
  item('radio', 'sex', '性别', { optionsValue: '1,2', optionsText: '男,女' }),
  item('date', 'visit', '就诊日期'),
  item('text', 'note', '备注'),
]);
const instance = { studyId: 1, subjectRecordId: 2, crfId: 3, crfDataRecordId: null };

function entry(patch: Partial<DoubleEntry>): DoubleEntry {
  return {
    entryId: 1,
    entryNo: 1,
    state: 'draft',
    userId: 5,
    userName: '李护士(13900000001)',
    crfVersion: 1,
    values: {},
    missing: {},
    updateDate: '2026-03-02T01:02:03Z',
    ...patch,
  };
}

describe('issue 37 双份录入 on the CRF page', () => {
  it('the entering user sees their own entry as 第二次录入, saves it', async () => {
    const mine: MyDoubleEntry = {
      doubleEntry: true,
      entry: entry({ entryId: 2, entryNo: 2, values: { sbp: '120' } }),
      nextEntryNo: 2,
      pair: [
        { entryNo: 1, state: 'done', userName: '王护士' },
        { entryNo: 2, state: 'draft', userName: '李护士' },
      ],
      mayReconcile: false,
    };
    api.mine.mockResolvedValue(ok(mine));
    api.save.mockResolvedValue(ok(mine.entry));
    renderWithProviders(
      <DoubleEntryPanel instance={instance} definition={definition} locked={false} onReconciled={vi.fn()} />,
    );
    expect(await screen.findByText('第二次录入')).toBeTruthy();
    expect(screen.getByText('第一次录入：王护士（已完成）')).toBeTruthy();
    expect((screen.getByLabelText('收缩压') as HTMLInputElement).value).toBe('120');
    fireEvent.click(screen.getByRole('button', { name: '保存录入' }));
    await waitFor(() =>
      expect(api.save).toHaveBeenCalledWith(expect.objectContaining({ crfId: 3, values: { sbp: '120' } })),
    );
    expect(screen.queryByRole('button', { name: '双录入核对' })).toBeNull();
  });

  it('a locked form shows the entry read-only, without the entry buttons', async () => {
    api.mine.mockResolvedValue(
      ok({ doubleEntry: true, entry: entry({}), nextEntryNo: 1, pair: [], mayReconcile: false }),
    );
    renderWithProviders(<DoubleEntryPanel instance={instance} definition={definition} locked onReconciled={vi.fn()} />);
    expect(await screen.findByText('第一次录入')).toBeTruthy();
    expect(screen.queryByRole('button', { name: '保存录入' })).toBeNull();
  });

  it('双录入核对: both entries side by side, differences highlighted, a choice each, then 确认核对', async () => {
    const compare: DoubleEntryCompare = {
      entry1: entry({ values: { sbp: '120', dbp: '80', hr: '70' }, userName: '王护士' }),
      entry2: entry({ entryId: 2, entryNo: 2, values: { sbp: '120', dbp: '85', hr: '72' }, userName: '李护士' }),
      differences: [
        { itemName: 'dbp', entry1: '80', entry2: '85', missing1: null, missing2: null },
        { itemName: 'hr', entry1: '70', entry2: '72', missing1: null, missing2: null },
      ],
    };
    api.compare.mockResolvedValue(ok(compare));
    api.reconcile.mockResolvedValue(ok({ crfDataRecordId: 9, version: 1, state: 1, differences: 2 }));
    const onReconciled = vi.fn();
    renderWithProviders(
      <DoubleEntryReconcile
        open
        instance={instance}
        definition={definition}
        onClose={vi.fn()}
        onReconciled={onReconciled}
      />,
    );
    expect(await screen.findByText('共 2 处差异，请逐项选择')).toBeTruthy();
    const rows = document.querySelectorAll('tr.double-entry-diff');
    expect(rows).toHaveLength(2);
    expect(within(rows[0] as HTMLElement).getByText('舒张压')).toBeTruthy();

    // Undecided: nothing is sent.
    fireEvent.click(screen.getByRole('button', { name: /确认核对/ }));
    expect(api.reconcile).not.toHaveBeenCalled();

    const dbp = screen.getByRole('radiogroup', { name: '舒张压核对结果' });
    fireEvent.click(within(dbp).getByLabelText('第二次录入'));
    const hr = screen.getByRole('radiogroup', { name: '心率核对结果' });
    fireEvent.click(within(hr).getByLabelText('自定义'));
    // 心率 is a number: 自定义 is a number input.
    const number = within(hr).getByRole('spinbutton', { name: '心率自定义' });
    fireEvent.change(number, { target: { value: '71' } });
    fireEvent.click(screen.getByRole('button', { name: /确认核对/ }));
    await waitFor(() => expect(api.reconcile).toHaveBeenCalledWith(instance, { dbp: 'entry2', hr: { value: '71' } }));
    await waitFor(() => expect(onReconciled).toHaveBeenCalledWith(9));
  });

  it('缺失原因: the entering user marks an item as on the form; the save sends the mark, not a value beside it', async () => {
    const mine: MyDoubleEntry = {
      doubleEntry: true,
      entry: entry({ values: { sbp: '120', hr: '70' } }),
      nextEntryNo: 1,
      pair: [{ entryNo: 1, state: 'draft', userName: '王护士' }],
      mayReconcile: false,
    };
    api.mine.mockResolvedValue(ok(mine));
    api.save.mockResolvedValue(ok(mine.entry));
    renderWithProviders(
      <DoubleEntryPanel instance={instance} definition={definition} locked={false} onReconciled={vi.fn()} />,
    );
    fireEvent.click(await screen.findByTitle('标记缺失 心率'));
    fireEvent.click(await screen.findByRole('menuitem', { name: '未查(ND)' }));
    // The code stands in place of the control, as on the form itself.
    await waitFor(() => expect(document.querySelector('.crf-missing-tag')?.textContent).toBe('未查(ND)'));
    fireEvent.click(screen.getByRole('button', { name: '保存录入' }));
    await waitFor(() => expect(api.save).toHaveBeenCalled());
    const body = api.save.mock.calls[0]![0] as { values: Record<string, unknown>; missing: Record<string, string> };
    expect(body.missing).toEqual({ hr: 'ND' });
    expect(body.values).toEqual({ sbp: '120' });
  });

  it('a stored mark shows in the entry, and a done entry offers no 缺失 menu', async () => {
    api.mine.mockResolvedValue(
      ok({
        doubleEntry: true,
        entry: entry({ state: 'done', values: { sbp: '120' }, missing: { hr: 'UNK' } }),
        nextEntryNo: 1,
        pair: [{ entryNo: 1, state: 'done', userName: '王护士' }],
        mayReconcile: false,
      }),
    );
    renderWithProviders(
      <DoubleEntryPanel instance={instance} definition={definition} locked={false} onReconciled={vi.fn()} />,
    );
    expect(await screen.findByText('未知(UNK)')).toBeTruthy();
    expect(screen.queryByTitle(/^标记缺失/)).toBeNull();
  });

  it("自定义 fits the item: a select of the options, a date in the item's format, a 缺失原因 in place of a value", async () => {
    const compare: DoubleEntryCompare = {
      entry1: entry({ values: { sex: '1', visit: '2026-03-01', hr: '70' }, userName: '王护士' }),
      entry2: entry({ entryId: 2, entryNo: 2, values: { sex: '2', visit: '2026-03-02' }, missing: { hr: 'ND' } }),
      differences: [
        { itemName: 'hr', entry1: '70', entry2: null, missing1: null, missing2: 'ND' },
        { itemName: 'sex', entry1: '1', entry2: '2', missing1: null, missing2: null },
        { itemName: 'visit', entry1: '2026-03-01', entry2: '2026-03-02', missing1: null, missing2: null },
      ],
    };
    api.compare.mockResolvedValue(ok(compare));
    api.reconcile.mockResolvedValue(ok({ crfDataRecordId: 9, version: 1, state: 1, differences: 3 }));
    renderWithProviders(
      <DoubleEntryReconcile
        open
        instance={instance}
        definition={definition}
        onClose={vi.fn()}
        onReconciled={vi.fn()}
      />,
    );
    expect(await screen.findByText('共 3 处差异，请逐项选择')).toBeTruthy();
    // A mark is shown as a mark on its side.
    expect(screen.getByText('缺失：ND')).toBeTruthy();

    const sex = screen.getByRole('radiogroup', { name: '性别核对结果' });
    fireEvent.click(within(sex).getByLabelText('自定义'));
    // The item's options, not a text box.
    expect(within(sex).queryByPlaceholderText('按原始CRF填写')?.tagName).not.toBe('INPUT');
    fireEvent.mouseDown(within(sex).getByRole('combobox', { name: '性别自定义' }));
    fireEvent.click(await screen.findByTitle('女'));

    const visit = screen.getByRole('radiogroup', { name: '就诊日期核对结果' });
    fireEvent.click(within(visit).getByLabelText('自定义'));
    const date = within(visit).getByPlaceholderText('YYYY-MM-DD');
    fireEvent.mouseDown(date);
    fireEvent.change(date, { target: { value: '2026-03-05' } });
    fireEvent.keyDown(date, { key: 'Enter', code: 'Enter', keyCode: 13 });

    const hr = screen.getByRole('radiogroup', { name: '心率核对结果' });
    fireEvent.click(within(hr).getByLabelText('自定义'));
    fireEvent.mouseDown(within(hr).getByRole('combobox', { name: '心率缺失原因' }));
    fireEvent.click(await screen.findByTitle('不适用(NA)'));
    // A code in place of a value: the number input is off.
    expect((within(hr).getByRole('spinbutton', { name: '心率自定义' }) as HTMLInputElement).disabled).toBe(true);

    fireEvent.click(screen.getByRole('button', { name: /确认核对/ }));
    await waitFor(() =>
      expect(api.reconcile).toHaveBeenCalledWith(instance, {
        hr: { missing: 'NA' },
        sex: { value: '2' },
        visit: { value: '2026-03-05' },
      }),
    );
  });
});
