import { useRef } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { DEFAULT_MISSING_CODES, type CrfDefinition } from '@ecrf/core';
import type { CrfRecordDetail, CrfSaveBody } from '../../../api/crf.api';
import { ApiError } from '../../../api/request';
import type * as CrfApi from '../../../api/crf.api';
import type * as MissingCodesApi from '../../../api/missing-codes.api';
import type * as LabRangesApi from '../../../api/lab-ranges.api';
import { renderWithProviders } from '../../../test/render';
import { draftKey, makeDraft, writeDraft } from '../save-flow';
import { CrfEditor } from './crf-editor';

const api = vi.hoisted(() => ({ save: vi.fn(), upload: vi.fn() }));
type CrfApiModule = typeof CrfApi;
vi.mock('../../../api/crf.api', async (importOriginal) => {
  const original = await importOriginal<CrfApiModule>();
  return { ...original, crfRecordApi: { ...original.crfRecordApi, save: api.save, upload: api.upload } };
});

// 参考范围: the site ranges a save would use, read before the record's first save (use-site-ranges.ts).
const ranges = vi.hoisted(() => ({ applicable: vi.fn() }));
vi.mock('../../../api/lab-ranges.api', async (importOriginal) => {
  const original = await importOriginal<typeof LabRangesApi>();
  return { ...original, labRangesApi: { ...original.labRangesApi, applicable: ranges.applicable } };
});

// The study's codes are the defaults (the hook's own call is api-level and tested with the config page).
vi.mock('../../../api/missing-codes.api', async (importOriginal) => ({
  ...(await importOriginal<typeof MissingCodesApi>()),
  useMissingCodes: () => DEFAULT_MISSING_CODES,
}));

const DEFINITION: CrfDefinition = {
  title: '生命体征',
  option: {},
  children: [
    {
      name: 'vs',
      title: '生命体征',
      type: 'section',
      option: { crfCols: 2 },
      children: [
        { name: 'sbp', title: '收缩压', type: 'int', option: { units: 'mmHg', required: 1 }, children: [] },
        { name: 'dbp', title: '舒张压', type: 'int', option: { units: 'mmHg', required: 1 }, children: [] },
      ],
    },
  ],
};

function detailOf(
  record: {
    id: number;
    version: number;
    state: number;
    values: Record<string, unknown>;
    missing?: Record<string, string>;
    labRanges?: Record<string, unknown>;
  } | null,
  permissions = { save: true, submit: true },
): CrfRecordDetail {
  return {
    crf: { id: 3, title: '生命体征', version: 1, option: {}, definition: DEFINITION },
    subject: {
      id: 1,
      studyId: 5,
      subjectRecordId: 7,
      identificationCode: 'LSS-0001',
      subjectName: '张建国',
      gender: 1,
      birth: null,
      age: null,
      mobile: null,
      diseaseCode: 'LSS',
      openId: null,
      qrCode: 'abc',
      state: 0,
      creater: '管理员',
      createTime: '',
      test: false,
    },
    subjectRecord: { id: 7, creater: '管理员', state: 0 },
    subjectState: { crfId: 3, subjectRecordId: 7, state: record?.state ?? 0 },
    crfDataRecord: record
      ? { ...record, crfDataRecordId: record.id, crfVersion: 1, sdv: {}, createTime: '', updateTime: '' }
      : null,
    crfDataRecords: record ? [{ crfDataRecordId: record.id, state: record.state }] : [],
    crfDoubts: [],
    initialValues: record ? null : {},
    repeat: 1,
    permissions: { ...permissions, sdv: false, sign: false, doubt: false },
    signature: null,
  };
}

const SUBMITTED = { id: 41, version: 3, state: 2, values: { sbp: '120', dbp: '80' } };
const dirtyChanges = vi.fn<(dirty: boolean) => void>();

function Host({ detail, onSaved, onReload }: { detail: CrfRecordDetail; onSaved: () => void; onReload: () => void }) {
  const bypass = useRef(false);
  return (
    <CrfEditor
      subjectRecordId={7}
      crfId={3}
      studyId={5}
      detail={detail}
      onSaved={onSaved}
      onReload={onReload}
      onDirtyChange={dirtyChanges}
      bypassGuardRef={bypass}
    />
  );
}

function renderEditor(detail: CrfRecordDetail) {
  const onSaved = vi.fn();
  const onReload = vi.fn();
  const router = createMemoryRouter(
    [
      { path: '/crf/:subjectRecordId', element: <Host detail={detail} onSaved={onSaved} onReload={onReload} /> },
      { path: '/elsewhere', element: <div>另一个页面</div> },
    ],
    { initialEntries: ['/crf/7?crfId=3'] },
  );
  renderWithProviders(<RouterProvider router={router} />);
  return { onSaved, onReload, router };
}

const type = (label: string, value: string) => {
  const input = screen.getByLabelText(label);
  fireEvent.change(input, { target: { value } });
  fireEvent.blur(input);
};
const click = (name: string) => fireEvent.click(screen.getByRole('button', { name: new RegExp(`${name}$`) }));
const ok = <T,>(data: T, msg: string) => ({ code: 200, msg, data });
/** 提交 asks first; the confirmation's own 提交 sends. */
const confirmSubmit = async () => {
  const dialog = await screen.findByRole('dialog', { name: '确认提交该表单？' });
  fireEvent.click(within(dialog).getByRole('button', { name: /提\s*交/ }));
};

beforeEach(() => {
  window.localStorage.clear();
  ranges.applicable.mockResolvedValue({ code: 200, msg: '', data: {} });
});
afterEach(() => {
  cleanup();
  vi.clearAllMocks();
});

describe('CRF editor: saving', () => {
  it('CRF-22/CRF-23: a new record is sent as version 0 with a requestId; 保存成功 and the page hears of it', async () => {
    api.save.mockResolvedValue(ok({ crfDataRecordId: 50, version: 1, state: 1, errors: [], warnings: [] }, '保存成功'));
    const { onSaved } = renderEditor(detailOf(null));
    type('收缩压', '120');
    expect(screen.getByText('有未保存的修改')).toBeTruthy();
    click('保存');
    await screen.findByText('保存成功');
    const body = api.save.mock.calls[0]![0] as CrfSaveBody;
    expect(body).toMatchObject({
      subjectRecordId: 7,
      crfId: 3,
      crfDataRecordId: null,
      version: 0,
      values: { sbp: '120' },
      submit: false,
      reason: null,
    });
    expect(body.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(onSaved).toHaveBeenCalledWith(expect.objectContaining({ crfDataRecordId: 50 }), true);
    expect(screen.queryByText('有未保存的修改')).toBeNull();
    // The saved values leave no draft behind.
    expect(window.localStorage.getItem(draftKey(null, 7, 3, null))).toBeNull();
    expect(window.localStorage.getItem(draftKey(null, 7, 3, 50))).toBeNull();
  });

  it('QRY-20: the unsaved flag (changeSaveStatus) is raised by a change and lowered by the save', async () => {
    api.save.mockResolvedValue(ok({ crfDataRecordId: 50, version: 1, state: 1, errors: [], warnings: [] }, '保存成功'));
    renderEditor(detailOf(null));
    expect(dirtyChanges).toHaveBeenLastCalledWith(false);
    type('收缩压', '120');
    await waitFor(() => expect(dirtyChanges).toHaveBeenLastCalledWith(true));
    expect(screen.getByText('有未保存的修改')).toBeTruthy();
    click('保存');
    await screen.findByText('保存成功');
    await waitFor(() => expect(dirtyChanges).toHaveBeenLastCalledWith(false));
    expect(screen.queryByText('有未保存的修改')).toBeNull();
  });

  it('CRF-27: changing a submitted form asks for 修改原因 (required) before anything is sent', async () => {
    api.save.mockResolvedValue(ok({ crfDataRecordId: 41, version: 4, state: 2, errors: [], warnings: [] }, '保存成功'));
    renderEditor(detailOf(SUBMITTED));
    type('收缩压', '130');
    click('保存');
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByText('收缩压')).toBeTruthy();
    fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
    await within(dialog).findByText('请填写修改原因');
    expect(api.save).not.toHaveBeenCalled();
    fireEvent.change(within(dialog).getByLabelText('修改原因'), { target: { value: '复测血压' } });
    fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
    await screen.findByText('保存成功');
    expect(api.save.mock.calls[0]![0]).toMatchObject({
      crfDataRecordId: 41,
      version: 3,
      reason: '复测血压',
      values: { sbp: '130', dbp: '80' },
    });
  });

  it('CRF-28: refused items are marked on the form and named in the message and in a list above it; the first is focused', async () => {
    api.save.mockRejectedValue(
      new ApiError(400, '请将必填项填写完整', 400, {
        errors: [{ itemName: 'dbp', groupName: null, groupIndex: null, message: '请输入数据' }],
      }),
    );
    renderEditor(detailOf(null));
    type('收缩压', '120');
    click('提交');
    await confirmSubmit();
    // Never the message alone: the toast names the items, and so does the list above the form.
    await screen.findByText('请将必填项填写完整：舒张压');
    const list = document.querySelector('.crf-error-list')!;
    expect(list.textContent).toContain('请将必填项填写完整');
    expect(within(list as HTMLElement).getByRole('button', { name: '舒张压' })).toBeTruthy();
    const field = screen.getByLabelText('舒张压').closest('.crf-field')!;
    expect(field.textContent).toContain('请输入数据');
    // The first item named is scrolled to and focused.
    await waitFor(() => expect(document.activeElement).toBe(screen.getByLabelText('舒张压')));
    expect(api.save.mock.calls[0]![0]).toMatchObject({ submit: true });
    // Still unsaved, and kept.
    expect(screen.getByText('有未保存的修改')).toBeTruthy();
    expect(window.localStorage.getItem(draftKey(null, 7, 3, null))).toContain('"sbp"');
  });

  it('409: the other person’s values and the user’s own are shown side by side; nothing is overwritten and 刷新 reloads', async () => {
    api.save.mockRejectedValue(
      new ApiError(409, '数据已被他人修改，请刷新后重试', 409, {
        current: {
          crfDataRecordId: 41,
          version: 4,
          values: { sbp: '135', dbp: '80' },
          updatedBy: 2,
          updateTime: '2026-03-01T02:00:00Z',
        },
        changedItems: ['sbp'],
      }),
    );
    const { onReload } = renderEditor(detailOf({ ...SUBMITTED, state: 1 }));
    type('收缩压', '130');
    click('保存');
    const dialog = await screen.findByRole('dialog', { name: '数据已被他人修改，请刷新后重试' });
    const row = within(dialog).getByText('收缩压').closest('tr')!;
    expect(row.textContent).toContain('135 mmHg');
    expect(row.textContent).toContain('130 mmHg');
    expect(within(row).getByText('您修改过')).toBeTruthy();
    expect(api.save).toHaveBeenCalledTimes(1);
    // The user's edit waits in the draft for after the reload.
    expect(JSON.parse(window.localStorage.getItem(draftKey(null, 7, 3, 41))!).changes.sbp).toEqual({
      from: '120',
      to: '130',
    });
    fireEvent.click(within(dialog).getByRole('button', { name: '刷新' }));
    expect(onReload).toHaveBeenCalled();
  });

  it('a lost answer is asked again with the same requestId', async () => {
    api.save
      .mockRejectedValueOnce(new ApiError(0, '系统异常', null))
      .mockResolvedValue(ok({ crfDataRecordId: 41, version: 4, state: 1, errors: [], warnings: [] }, '保存成功'));
    renderEditor(detailOf({ ...SUBMITTED, state: 1 }));
    type('收缩压', '125');
    click('保存');
    await screen.findByText('保存成功', undefined, { timeout: 3000 });
    expect(api.save).toHaveBeenCalledTimes(2);
    const [first, second] = api.save.mock.calls.map((call) => (call[0] as CrfSaveBody).requestId);
    expect(second).toBe(first);
  });

  it('warnings of a submit are shown: they became system queries', async () => {
    api.save.mockResolvedValue(
      ok(
        {
          crfDataRecordId: 41,
          version: 4,
          state: 2,
          errors: [],
          warnings: [{ itemName: 'sbp', groupName: null, groupIndex: null, message: '收缩压≥180 mmHg，请核实' }],
        },
        '提交成功',
      ),
    );
    renderEditor(detailOf({ ...SUBMITTED, state: 1 }));
    type('收缩压', '185');
    click('提交');
    await confirmSubmit();
    await screen.findByText(
      (_text, element) => element?.tagName === 'LI' && element.textContent === '收缩压：收缩压≥180 mmHg，请核实',
    );
    expect(screen.getByText(/以下提示已作为系统质疑/)).toBeTruthy();
  });
});

describe('CRF editor: submitting asks first', () => {
  it('提交 asks 确认提交该表单？; 取消 sends nothing', async () => {
    renderEditor(detailOf({ ...SUBMITTED, state: 1 }));
    type('收缩压', '125');
    click('提交');
    const dialog = await screen.findByRole('dialog', { name: '确认提交该表单？' });
    expect(dialog.textContent).toContain('提交后再修改需填写修改原因');
    fireEvent.click(within(dialog).getByRole('button', { name: /取\s*消/ }));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(api.save).not.toHaveBeenCalled();
  });

  it('an already submitted form is not asked again: a change asks for 修改原因 instead', async () => {
    renderEditor(detailOf(SUBMITTED));
    type('收缩压', '125');
    click('提交');
    await screen.findByRole('dialog', { name: '修改原因' });
    expect(screen.queryByRole('dialog', { name: '确认提交该表单？' })).toBeNull();
  });
});

describe('CRF editor: never losing a value', () => {
  it('a draft of unsaved values is offered back on return, and restored into the form', async () => {
    writeDraft(
      window.localStorage,
      draftKey(null, 7, 3, 41),
      makeDraft({ sbp: '120', dbp: '80' }, { sbp: '128', dbp: '80' }, 3),
    );
    renderEditor(detailOf(SUBMITTED));
    const dialog = await screen.findByRole('dialog', { name: '发现未保存的修改' });
    expect(within(dialog).getByText('收缩压')).toBeTruthy();
    fireEvent.click(within(dialog).getByRole('button', { name: '恢复我的修改' }));
    await waitFor(() => expect((screen.getByLabelText('收缩压') as HTMLInputElement).value).toBe('128'));
    expect(screen.getByText('有未保存的修改')).toBeTruthy();
  });

  it('a draft already saved on the server is not offered', () => {
    writeDraft(window.localStorage, draftKey(null, 7, 3, 41), makeDraft({ sbp: '110' }, { sbp: '120' }, 2));
    renderEditor(detailOf(SUBMITTED));
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it('leaving with unsaved changes asks first; 继续填写 stays with the values', async () => {
    const { router } = renderEditor(detailOf(SUBMITTED));
    type('舒张压', '85');
    await act(() => router.navigate('/elsewhere'));
    const dialog = await screen.findByText('有未保存的修改', { selector: '.ant-modal-confirm-title' });
    expect(dialog).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: '继续填写' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/crf/7'));
    expect((screen.getByLabelText('舒张压') as HTMLInputElement).value).toBe('85');

    await act(() => router.navigate('/elsewhere'));
    await waitFor(() => expect(screen.getAllByRole('button', { name: '离开' }).length).toBeGreaterThan(0));
    fireEvent.click(screen.getAllByRole('button', { name: '离开' }).at(-1)!);
    await screen.findByText('另一个页面');
    // The values wait in the draft.
    expect(JSON.parse(window.localStorage.getItem(draftKey(null, 7, 3, 41))!).changes.dbp.to).toBe('85');
  });

  it('VIS-09: without save and submit permissions the form is read-only and offers no buttons', () => {
    renderEditor(detailOf(SUBMITTED, { save: false, submit: false }));
    expect(screen.getByText('您没有该表单的录入权限，表单为只读')).toBeTruthy();
    expect((screen.getByLabelText('收缩压') as HTMLInputElement).disabled).toBe(true);
    expect(screen.queryByRole('button', { name: /保存$/ })).toBeNull();
  });
});

describe('CRF editor: missing-data codes (缺失原因)', () => {
  /** The item's 缺失 menu, then one of its entries. */
  const markMissing = async (title: string, entry: string) => {
    fireEvent.click(await screen.findByTitle(`标记缺失 ${title}`));
    fireEvent.click(await screen.findByRole('menuitem', { name: entry }));
  };
  const fieldOf = (title: string) => screen.getByText(title, { selector: 'label' }).closest('.crf-field')!;

  it('a nurse marks an item 未查(ND): the code stands in place of the control, and 保存 sends it in missing', async () => {
    api.save.mockResolvedValue(ok({ crfDataRecordId: 50, version: 1, state: 1, errors: [], warnings: [] }, '保存成功'));
    renderEditor(detailOf(null));
    type('收缩压', '120');
    await markMissing('收缩压', '未查(ND)');
    const field = fieldOf('收缩压');
    expect(within(field as HTMLElement).getByText('未查(ND)')).toBeTruthy();
    expect(field.querySelector('input')).toBeNull();
    expect(screen.getByText('有未保存的修改')).toBeTruthy();
    type('舒张压', '80');
    click('保存');
    await screen.findByText('保存成功');
    // The value typed before the mark is not sent beside it (the server would refuse the pair).
    expect(api.save.mock.calls[0]![0]).toMatchObject({ values: { dbp: '80' }, missing: { sbp: 'ND' } });
    expect((api.save.mock.calls[0]![0] as CrfSaveBody).values).not.toHaveProperty('sbp');
  });

  it('a marked required item is complete: 提交 is sent without an error on it', async () => {
    api.save.mockResolvedValue(ok({ crfDataRecordId: 50, version: 1, state: 2, errors: [], warnings: [] }, '提交成功'));
    renderEditor(detailOf(null));
    await markMissing('收缩压', '未查(ND)');
    type('舒张压', '80');
    click('提交');
    await confirmSubmit();
    await screen.findByText('提交成功');
    expect(api.save.mock.calls[0]![0]).toMatchObject({ submit: true, missing: { sbp: 'ND' } });
    expect(fieldOf('收缩压').textContent).not.toContain('请输入数据');
  });

  it('清除缺失标记 gives the input back, and the save sends the cleared map', async () => {
    api.save.mockResolvedValue(ok({ crfDataRecordId: 41, version: 2, state: 1, errors: [], warnings: [] }, '保存成功'));
    renderEditor(detailOf({ id: 41, version: 1, state: 1, values: { dbp: '80' }, missing: { sbp: 'UNK' } }));
    expect(await within(fieldOf('收缩压') as HTMLElement).findByText('未知(UNK)')).toBeTruthy();
    await markMissing('收缩压', '清除缺失标记');
    await waitFor(() => expect(fieldOf('收缩压').querySelector('.crf-missing-tag')).toBeNull());
    const input = screen.getByLabelText('收缩压') as HTMLInputElement;
    expect(input.disabled).toBe(false);
    type('收缩压', '118');
    click('保存');
    await screen.findByText('保存成功');
    expect(api.save.mock.calls[0]![0]).toMatchObject({ values: { sbp: '118', dbp: '80' }, missing: {} });
  });

  it('changing only a mark is a change: a submitted form asks for 修改原因', async () => {
    renderEditor(detailOf(SUBMITTED));
    await markMissing('舒张压', '拒绝回答(ASKU)');
    click('保存');
    const dialog = await screen.findByRole('dialog', { name: '修改原因' });
    expect(within(dialog).getByText('舒张压')).toBeTruthy();
  });

  it('the marks are kept in the local draft and offered back with the values', async () => {
    const first = renderEditor(detailOf(SUBMITTED));
    await markMissing('收缩压', '不适用(NA)');
    await act(() => first.router.navigate('/elsewhere'));
    fireEvent.click((await screen.findAllByRole('button', { name: '离开' })).at(-1)!);
    await screen.findByText('另一个页面');
    expect(JSON.parse(window.localStorage.getItem(draftKey(null, 7, 3, 41))!).missing).toEqual({ sbp: 'NA' });
    cleanup();
    renderEditor(detailOf(SUBMITTED));
    const dialog = await screen.findByRole('dialog', { name: '发现未保存的修改' });
    fireEvent.click(within(dialog).getByRole('button', { name: '恢复我的修改' }));
    expect(await within(fieldOf('收缩压') as HTMLElement).findByText('不适用(NA)')).toBeTruthy();
  });

  it('a read-only form shows the mark but offers no 缺失 menu', async () => {
    renderEditor(
      detailOf({ ...SUBMITTED, values: { dbp: '80' }, missing: { sbp: 'ND' } }, { save: false, submit: false }),
    );
    expect(await within(fieldOf('收缩压') as HTMLElement).findByText('未查(ND)')).toBeTruthy();
    expect(screen.queryByTitle(/^标记缺失/)).toBeNull();
  });
});

describe('CRF editor: 参考范围 (site reference ranges)', () => {
  const LAB: CrfDefinition = {
    title: '实验室检查',
    option: {},
    children: [
      {
        name: 'wbc',
        title: '白细胞',
        type: 'real',
        option: { units: '10^9/L', refValueMaleMin: 3.5, refValueMaleMax: 9.5 },
        children: [],
      },
    ],
  };
  const labDetail = (record: Parameters<typeof detailOf>[0]) => {
    const d = detailOf(record);
    return { ...d, crf: { ...d.crf, definition: LAB } };
  };

  it('before the first save, ↑ follows the site range the save would use (8.2 above the site’s 6, within the item’s 9.5)', async () => {
    ranges.applicable.mockResolvedValue({
      code: 200,
      msg: '',
      data: { wbc: { lower: 3.5, upper: 6, unit: '10^9/L' } },
    });
    renderEditor(labDetail(null));
    await waitFor(() => expect(ranges.applicable).toHaveBeenCalledWith(5, 7, 3, null));
    type('白细胞', '8.2');
    expect(await screen.findByText('↑ 偏高')).toBeTruthy();
  });

  it('once saved, the stored ranges win: the applicable ones are not asked for', async () => {
    const stored = { wbc: { lower: 3.5, upper: 9.5, unit: '10^9/L', source: 'item', rangeId: null } };
    renderEditor(labDetail({ id: 41, version: 1, state: 1, values: { wbc: '8.2' }, labRanges: stored }));
    expect(screen.queryByText('↑ 偏高')).toBeNull();
    expect(ranges.applicable).not.toHaveBeenCalled();
  });
});
