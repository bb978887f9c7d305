import { afterEach, describe, expect, it, vi } from 'vitest';
import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { ApiError } from '../../../api/request';
import type { DoubtDetail } from '../../../api/doubt.api';
import { renderWithProviders } from '../../../test/render';
import { DOUBT_REFRESH_MS, DoubtDialog, type DoubtDialogMode } from './doubt-dialog';

const api = vi.hoisted(() => ({
  open: vi.fn(),
  reopen: vi.fn(),
  get: vi.fn(),
  reply: vi.fn(),
  close: vi.fn(),
}));
vi.mock('../../../api/doubt.api', async (importOriginal) => ({
  ...(await importOriginal<object>()),
  doubtApi: api,
}));

const ok = <T,>(data: T, msg = '') => ({ code: 200, msg, data });

function thread(optionType: number, extra: Partial<DoubtDetail> = {}): DoubtDetail {
  return {
    doubtId: 9,
    studyId: 1,
    subjectRecordId: 2,
    crfDataRecordId: 41,
    crfId: 3,
    itemName: 'hr',
    itemValue: '72',
    groupName: null,
    groupIndex: null,
    doubtDescription: '心率与原始病历不符',
    optionType,
    doubtType: 1,
    userName: '监查员(13900000000)',
    createDate: '2026-03-01T02:00:00Z',
    updateDate: '2026-03-01T02:00:00Z',
    closeDate: null,
    currentValue: '72',
    messages: [
      {
        id: 1,
        kind: 'open',
        content: '心率与原始病历不符',
        itemValue: '72',
        userName: '监查员(13900000000)',
        createDate: '2026-03-01T02:00:00Z',
      },
    ],
    ...extra,
  };
}

const ALL = () => true;
const START: DoubtDialogMode = {
  kind: 'start',
  target: { crfDataRecordId: 41, itemName: 'hr', itemTitle: '心率', value: '72 次/分' },
};

function renderDialog(
  mode: DoubtDialogMode,
  props: { can?: (code: string) => boolean; readOnly?: boolean; onChanged?: () => void } = {},
) {
  return renderWithProviders(
    <DoubtDialog
      mode={mode}
      can={props.can ?? ALL}
      readOnly={props.readOnly}
      onChanged={props.onChanged}
      describe={() => ({ title: '心率', format: (v) => (v ? `${String(v)} 次/分` : '') })}
      onClose={() => undefined}
    />,
  );
}

const dialog = () => screen.getByRole('dialog');
const button = (name: string) => within(dialog()).getByRole('button', { name });

afterEach(() => {
  cleanup();
  vi.clearAllMocks();
  vi.useRealTimers();
});

describe('query dialog: start mode', () => {
  it('QRY-08/QRY-09/QRY-15/QRY-17: shows the item and its value read-only, needs content, then 开启质疑成功 and the thread', async () => {
    const onChanged = vi.fn();
    api.open.mockResolvedValue(ok({ doubtId: 9 }, '开启质疑成功'));
    api.get.mockResolvedValue(ok(thread(0)));
    renderDialog(START, { onChanged });
    expect(within(dialog()).getByText('发起质疑', { selector: '.ant-modal-title' })).toBeTruthy();
    const item = within(dialog()).getByLabelText('题目') as HTMLInputElement;
    const value = within(dialog()).getByLabelText('当前值') as HTMLInputElement;
    expect([item.value, item.readOnly, value.value, value.readOnly]).toEqual(['心率', true, '72 次/分', true]);

    fireEvent.click(button('发起质疑'));
    await within(dialog()).findByText('请输入质疑内容');
    expect(api.open).not.toHaveBeenCalled();

    fireEvent.change(within(dialog()).getByLabelText('质疑内容'), { target: { value: ' 心率与原始病历不符 ' } });
    fireEvent.click(button('发起质疑'));
    await screen.findByText('开启质疑成功');
    expect(api.open).toHaveBeenCalledWith({
      crfDataRecordId: 41,
      itemName: 'hr',
      groupName: null,
      groupIndex: null,
      doubtDescription: '心率与原始病历不符',
    });
    expect(onChanged).toHaveBeenCalledWith(9);
    // The dialog turns to the new query's history.
    await within(dialog()).findByText('质疑记录');
    expect(within(dialog()).getAllByText('心率与原始病历不符').length).toBeGreaterThan(0);
  });

  it('QRY-07: a form not saved yet cannot be queried: 请先保存表单，再发起质疑', async () => {
    renderDialog({
      kind: 'start',
      target: { ...(START as { target: object }).target, crfDataRecordId: null } as never,
    });
    fireEvent.change(within(dialog()).getByLabelText('质疑内容'), { target: { value: '请核实' } });
    fireEvent.click(button('发起质疑'));
    await screen.findByText('请先保存表单，再发起质疑');
    expect(api.open).not.toHaveBeenCalled();
  });

  it('QRY-13/QRY-14: the history refreshes every 60 s while open; a failed start stops the timer', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    api.get.mockResolvedValue(ok(thread(0)));
    renderDialog({ kind: 'history', doubtId: 9 });
    await waitFor(() => expect(api.get).toHaveBeenCalledTimes(1));
    await act(() => vi.advanceTimersByTimeAsync(DOUBT_REFRESH_MS));
    await waitFor(() => expect(api.get).toHaveBeenCalledTimes(2));
    await act(() => vi.advanceTimersByTimeAsync(DOUBT_REFRESH_MS));
    await waitFor(() => expect(api.get).toHaveBeenCalledTimes(3));
    cleanup();

    const setInterval = vi.spyOn(globalThis, 'setInterval');
    const clearInterval = vi.spyOn(globalThis, 'clearInterval');
    api.open.mockRejectedValue(new ApiError(409, '该题目已有未关闭的质疑', 409));
    renderDialog(START);
    const timersBefore = setInterval.mock.calls.filter(([, ms]) => ms === DOUBT_REFRESH_MS).length;
    expect(timersBefore).toBeGreaterThan(0);
    fireEvent.change(within(dialog()).getByLabelText('质疑内容'), { target: { value: '请核实' } });
    fireEvent.click(button('发起质疑'));
    await screen.findByText('该题目已有未关闭的质疑');
    await waitFor(() => expect(clearInterval).toHaveBeenCalled());
    // No new refresh timer after the failure.
    expect(setInterval.mock.calls.filter(([, ms]) => ms === DOUBT_REFRESH_MS).length).toBe(timersBefore);
  });
});

describe('query dialog: history mode', () => {
  it('QRY-10/QRY-15/QRY-18: 回复质疑 opens its own box (回复内容); empty says 请输入回复内容; a reply says 回复质疑成功', async () => {
    api.get.mockResolvedValueOnce(ok(thread(0))).mockResolvedValue(
      ok(
        thread(2, {
          messages: [
            ...thread(0).messages,
            {
              id: 2,
              kind: 'reply',
              content: '已核对',
              itemValue: '72',
              userName: 'CRC',
              createDate: '2026-03-01T03:00:00Z',
            },
          ],
        }),
      ),
    );
    api.reply.mockResolvedValue(ok(null, '回复质疑成功'));
    const onChanged = vi.fn();
    renderDialog({ kind: 'history', doubtId: 9 }, { onChanged });
    await within(dialog()).findByText('待回复');
    // 质疑值 and 当前值, through the form's own value text.
    expect(within(dialog()).getAllByText('72 次/分')).toHaveLength(2);
    // No box until an action is chosen; the box then belongs to that action only.
    expect(within(dialog()).queryByRole('textbox')).toBeNull();
    fireEvent.click(button('回复质疑'));
    const panel = within(dialog()).getByRole('region', { name: '回复质疑' });
    fireEvent.click(within(panel).getByRole('button', { name: '提交回复' }));
    await within(dialog()).findByText('请输入回复内容');
    expect(api.reply).not.toHaveBeenCalled();
    fireEvent.change(within(panel).getByLabelText('回复内容'), { target: { value: '已核对' } });
    fireEvent.click(within(panel).getByRole('button', { name: '提交回复' }));
    await screen.findByText('回复质疑成功');
    expect(api.reply).toHaveBeenCalledWith(9, '已核对');
    await within(dialog()).findByText('已回复');
    expect(onChanged).toHaveBeenCalledWith(9);
    expect(within(dialog()).queryByRole('region', { name: '回复质疑' })).toBeNull();
  });

  it('QRY-16/QRY-19: 关闭质疑 asks for its own reason (关闭原因, 请输入关闭原因), says 关闭质疑成功; a closed query offers no actions', async () => {
    api.get.mockResolvedValueOnce(ok(thread(2))).mockResolvedValue(ok(thread(1)));
    api.close.mockResolvedValue(ok(null, '关闭质疑成功'));
    renderDialog({ kind: 'history', doubtId: 9 });
    await within(dialog()).findByText('已回复');
    fireEvent.click(button('关闭质疑'));
    const panel = within(dialog()).getByRole('region', { name: '关闭质疑' });
    expect(within(panel).queryByLabelText('回复内容')).toBeNull();
    fireEvent.click(within(panel).getByRole('button', { name: '确认关闭质疑' }));
    await within(dialog()).findByText('请输入关闭原因');
    expect(api.close).not.toHaveBeenCalled();
    // 返回 leaves the action without closing anything.
    fireEvent.click(within(panel).getByRole('button', { name: '返回' }));
    expect(within(dialog()).queryByRole('region', { name: '关闭质疑' })).toBeNull();
    fireEvent.click(button('关闭质疑'));
    const again = within(dialog()).getByRole('region', { name: '关闭质疑' });
    fireEvent.change(within(again).getByLabelText('关闭原因'), { target: { value: '核实无误' } });
    fireEvent.click(within(again).getByRole('button', { name: '确认关闭质疑' }));
    await screen.findByText('关闭质疑成功');
    expect(api.close).toHaveBeenCalledWith(9, '核实无误');
    await within(dialog()).findByText('已关闭');
    expect(within(dialog()).queryByRole('textbox')).toBeNull();
    expect(within(dialog()).queryByRole('button', { name: '关闭质疑' })).toBeNull();
    expect(within(dialog()).queryByRole('button', { name: '回复质疑' })).toBeNull();
  });

  it('dismissing is 取消 (or ×) only: no button beside the query actions reads 关闭', async () => {
    api.get.mockResolvedValue(ok(thread(2)));
    const onClose = vi.fn();
    renderWithProviders(<DoubtDialog mode={{ kind: 'history', doubtId: 9 }} can={ALL} onClose={onClose} />);
    await within(dialog()).findByText('已回复');
    const names = within(dialog())
      .getAllByRole('button')
      .map((b) => b.textContent?.replace(/\s/g, ''));
    expect(names).not.toContain('关闭');
    const footer = dialog().querySelector('.ant-modal-footer') as HTMLElement;
    expect(
      within(footer)
        .getAllByRole('button')
        .map((b) => b.textContent?.replace(/\s/g, '')),
    ).toEqual(['取消']);
    fireEvent.click(within(footer).getByRole('button', { name: /取\s*消/ }));
    expect(onClose).toHaveBeenCalled();
    expect(api.close).not.toHaveBeenCalled();
  });

  it('QRY-11: a replied query is re-opened with study.doubt.open; each action needs its own button permission', async () => {
    api.get.mockResolvedValue(ok(thread(2)));
    api.reopen.mockResolvedValue(ok({ doubtId: 9 }, '开启质疑成功'));
    renderDialog({ kind: 'history', doubtId: 9 }, { can: (code) => code === 'study.doubt.open' });
    await within(dialog()).findByText('已回复');
    expect(within(dialog()).queryByRole('button', { name: '回复质疑' })).toBeNull();
    expect(within(dialog()).queryByRole('button', { name: '关闭质疑' })).toBeNull();
    fireEvent.click(button('重新开启质疑'));
    const panel = within(dialog()).getByRole('region', { name: '重新开启质疑' });
    fireEvent.change(within(panel).getByLabelText('重新开启原因'), { target: { value: '仍不一致，请再核实' } });
    fireEvent.click(within(panel).getByRole('button', { name: '确认重新开启' }));
    await screen.findByText('开启质疑成功');
    expect(api.reopen).toHaveBeenCalledWith(9, '仍不一致，请再核实');
  });

  it('QRY-12: in read-only mode there is no reply', async () => {
    api.get.mockResolvedValue(ok(thread(0)));
    renderDialog({ kind: 'history', doubtId: 9 }, { readOnly: true, can: (code) => code === 'study.doubt.reply' });
    await within(dialog()).findByText('待回复');
    expect(within(dialog()).queryByRole('textbox')).toBeNull();
    expect(within(dialog()).queryByRole('button', { name: '回复质疑' })).toBeNull();
  });

  it('shows the server’s words: the item title, the value with its unit, the form and the visit', async () => {
    api.get.mockResolvedValue(
      ok(
        thread(0, {
          itemName: 'hb',
          itemTitle: '血红蛋白',
          itemValue: 13.5,
          itemValueText: '13.5 g/dL',
          currentValue: 12.9,
          currentValueText: '12.9 g/dL',
          crfTitle: '实验室检查',
          stageName: '基线',
          messages: [{ ...thread(0).messages[0]!, itemValue: 13.5, itemValueText: '13.5 g/dL' }],
        }),
      ),
    );
    renderWithProviders(<DoubtDialog mode={{ kind: 'history', doubtId: 9 }} can={ALL} onClose={() => undefined} />);
    await within(dialog()).findByText('血红蛋白');
    for (const text of ['13.5 g/dL', '12.9 g/dL', '实验室检查', '基线', '当时的值：13.5 g/dL']) {
      expect(within(dialog()).getByText(text)).toBeTruthy();
    }
    expect(within(dialog()).queryByText('hb')).toBeNull();
  });
});
