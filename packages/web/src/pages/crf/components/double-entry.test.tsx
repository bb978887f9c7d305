import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import type { DoubleEntry, DoubleEntryCompare, MyDoubleEntry } from '../../../api/double-entry.api';
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

afterEach(() => {
  cleanup();
  vi.clearAllMocks();
});

const ok = <T,>(data: T, msg = '') => ({ code: 200, msg, data });
const definition = form([item('text', 'sbp', '收缩压'), item('text', 'dbp', '舒张压'), item('text', 'hr', '心率')]);
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
    fireEvent.change(within(hr).getByPlaceholderText('按原始CRF填写'), { target: { value: '71' } });
    fireEvent.click(screen.getByRole('button', { name: /确认核对/ }));
    await waitFor(() => expect(api.reconcile).toHaveBeenCalledWith(instance, { dbp: 'entry2', hr: { value: '71' } }));
    await waitFor(() => expect(onReconciled).toHaveBeenCalledWith(9));
  });
});
