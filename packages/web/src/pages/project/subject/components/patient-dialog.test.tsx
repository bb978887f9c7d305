import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import dayjs from 'dayjs';
import { ageFromBirth, latestBirthDate, residentIdCheckChar, todayString } from '@ecrf/core';
import type { Subject, SubjectFormModel } from '../../../../api/subject.api';
import { renderWithProviders } from '../../../../test/render';
import { isBirthDisabled } from '../patient-form';
import { PatientDialog, type PatientDialogState } from './patient-dialog';

const BASE_CONFIG = [
  { name: 'identificationCode', header: '住院号', display: true, required: true },
  { name: 'subjectName', header: '患者姓名', display: true, required: true },
  { name: 'gender', header: '性别', display: true, required: true },
  { name: 'birth', header: '出生日期', display: true, required: false },
  { name: 'age', header: '年龄', display: true, required: false },
  { name: 'mobile', header: '手机号', display: true, required: false },
  { name: 'diseaseCode', header: '病种', display: true, required: true },
];

function formModel(patch: Partial<SubjectFormModel> = {}): SubjectFormModel {
  return {
    baseConfig: BASE_CONFIG as SubjectFormModel['baseConfig'],
    diseases: [
      { id: 1, diseaseName: '腰椎管狭窄症', diseaseCode: 'LSS' },
      { id: 2, diseaseName: '腰椎滑脱症', diseaseCode: 'LDS' },
    ],
    enableSerialNumber: false,
    serialPreview: null,
    ...patch,
  };
}

const PATIENT: Subject = {
  id: 41,
  studyId: 5,
  subjectRecordId: 77,
  identificationCode: 'LSS-0001',
  subjectName: '张三',
  gender: 1,
  birth: '1960-03-15',
  age: 66,
  mobile: '13912345678',
  diseaseCode: 'LSS',
  openId: null,
  qrCode: 'abc',
  deptId: null,
  deptName: '骨科',
  state: 0,
  creater: '系统管理员',
  createTime: '2026-01-02T03:04:05Z',
  itemDatas: [],
  test: false,
};

const api = vi.hoisted(() => ({
  model: null as unknown,
  formModel: vi.fn(async () => ({ code: 200, msg: '', data: api.model })),
  isCodeTaken: vi.fn(async (_studyId: number, _code: string) => ({ code: 200, msg: '', data: false })),
  get: vi.fn(async (_id: number) => ({ code: 200, msg: '', data: null as unknown })),
  byRecord: vi.fn(async (_id: number) => ({ code: 200, msg: '', data: null as unknown })),
  add: vi.fn(async (body: object) => ({ code: 200, msg: '添加成功', data: body })),
  update: vi.fn(async (body: object) => ({ code: 200, msg: '修改成功', data: body })),
}));

vi.mock('../../../../api/subject.api', async (importOriginal) => ({
  ...(await importOriginal<object>()),
  subjectApi: api,
}));
vi.mock('../../../../api/study.api', () => ({
  personnelApi: { sites: vi.fn(async () => Promise.reject(new Error('403'))) },
}));

afterEach(() => {
  cleanup();
  vi.clearAllMocks();
  api.isCodeTaken.mockResolvedValue({ code: 200, msg: '', data: false });
});

function open(
  state: PatientDialogState,
  model = formModel(),
  props: { canEdit?: boolean; onClose?: () => void; patient?: Subject } = {},
) {
  api.model = model;
  api.get.mockResolvedValue({ code: 200, msg: '', data: props.patient ?? PATIENT });
  api.byRecord.mockResolvedValue({ code: 200, msg: '', data: props.patient ?? PATIENT });
  renderWithProviders(
    <PatientDialog
      studyId={5}
      state={state}
      canEdit={props.canEdit ?? true}
      onClose={props.onClose ?? (() => undefined)}
    />,
  );
}

const dialog = () => screen.getByRole('dialog');
const type = (label: string, value: string) => fireEvent.change(screen.getByLabelText(label), { target: { value } });
const clickOk = () => fireEvent.click(within(dialog()).getByRole('button', { name: '确定' }));

async function pickDisease(name: string) {
  fireEvent.mouseDown(screen.getByLabelText('病种'));
  const options = await screen.findAllByText(name);
  fireEvent.click(options[options.length - 1]!);
}

async function typeBirth(value: string) {
  const input = screen.getByLabelText('出生日期');
  fireEvent.mouseDown(input);
  fireEvent.focus(input);
  fireEvent.change(input, { target: { value } });
  fireEvent.keyDown(input, { key: 'Enter', keyCode: 13 });
  await waitFor(() => expect((input as HTMLInputElement).value).toBe(value));
}

describe('patient dialog', () => {
  it('SUBJ-06/SUBJ-07/SUBJ-20/SUBJ-05: 添加患者 with 取消 and 确定, fields labelled by the study base config', async () => {
    open({ mode: 'add' });
    expect(await screen.findByText('添加患者')).toBeTruthy();
    await screen.findByLabelText('住院号');
    for (const label of ['患者姓名', '出生日期', '年龄', '手机号', '病种']) {
      expect(screen.getByLabelText(label)).toBeTruthy();
    }
    expect(screen.getByText('男')).toBeTruthy();
    expect(screen.getByText('女')).toBeTruthy();
    const buttons = within(dialog())
      .getAllByRole('button')
      .map((b) => b.textContent?.replace(/\s/g, ''));
    expect(buttons).toEqual(expect.arrayContaining(['取消', '确定']));
    expect(buttons).not.toContain('编辑');
    expect(api.formModel).toHaveBeenCalledWith(5);
  });

  it('SUBJ-05: a field the study hides is not shown, and the study decides what is required', async () => {
    const config = BASE_CONFIG.map((f) =>
      f.name === 'mobile'
        ? { ...f, required: true }
        : f.name === 'birth' || f.name === 'age'
          ? { ...f, display: false }
          : f,
    );
    open({ mode: 'add' }, formModel({ baseConfig: config as SubjectFormModel['baseConfig'] }));
    await screen.findByLabelText('住院号');
    expect(screen.queryByLabelText('出生日期')).toBeNull();
    expect(screen.queryByLabelText('年龄')).toBeNull();
    clickOk();
    await waitFor(() => expect(screen.getByText('请输入11位手机号码')).toBeTruthy());
  });

  it('SUBJ-11/SUBJ-13/SUBJ-14/SUBJ-15/SUBJ-19: an empty form shows each rule under its field and 请将必填项填写完整', async () => {
    open({ mode: 'add' });
    await screen.findByLabelText('住院号');
    clickOk();
    await waitFor(() => expect(screen.getByText('请将必填项填写完整')).toBeTruthy());
    for (const text of ['请输入编号', '请输入患者姓名', '请选择患者性别', '请选择病种']) {
      expect(screen.getByText(text)).toBeTruthy();
    }
    expect(api.add).not.toHaveBeenCalled();
  });

  it('SUBJ-16: a mobile number must be 11 digits starting 13–19', async () => {
    open({ mode: 'add' });
    await screen.findByLabelText('手机号');
    type('手机号', '12345678901');
    await waitFor(() => expect(screen.getByText('请输入11位手机号码')).toBeTruthy());
    type('手机号', '13912345678');
    await waitFor(() => expect(screen.queryByText('请输入11位手机号码')).toBeNull());
  });

  it('SUBJ-12: in add mode a code used in the study shows 编号已存在 when the field is left, and nothing is saved', async () => {
    open({ mode: 'add' });
    api.isCodeTaken.mockResolvedValue({ code: 200, msg: '', data: true });
    await screen.findByLabelText('住院号');
    type('住院号', 'A-001');
    fireEvent.blur(screen.getByLabelText('住院号'));
    await waitFor(() => expect(screen.getByText('编号已存在')).toBeTruthy());
    expect(api.isCodeTaken).toHaveBeenCalledWith(5, 'A-001');
    type('患者姓名', '李四');
    fireEvent.click(screen.getByText('女'));
    await pickDisease('腰椎滑脱症');
    clickOk();
    await waitFor(() => expect(api.isCodeTaken).toHaveBeenCalledTimes(2));
    expect(screen.getByText('编号已存在')).toBeTruthy();
    expect(api.add).not.toHaveBeenCalled();
  });

  it('SUBJ-21/SUBJ-04: adding sends the patient with gender 1 for 男, shows the server message and closes', async () => {
    const onClose = vi.fn();
    open({ mode: 'add' }, formModel(), { onClose });
    await screen.findByLabelText('住院号');
    type('住院号', 'A-002');
    type('患者姓名', ' 王五 ');
    fireEvent.click(screen.getByText('男'));
    type('手机号', '13912345678');
    await pickDisease('腰椎管狭窄症');
    clickOk();
    await waitFor(() =>
      expect(api.add).toHaveBeenCalledWith({
        studyId: 5,
        identificationCode: 'A-002',
        subjectName: '王五',
        gender: 1,
        birth: null,
        mobile: '13912345678',
        idNumber: null,
        diseaseCode: 'LSS',
        deptId: null,
      }),
    );
    await waitFor(() => expect(screen.getByText('添加成功')).toBeTruthy());
    expect(onClose).toHaveBeenCalled();
  });

  it('SUBJ-10: a failed save is only logged, and the dialog closes', async () => {
    const onClose = vi.fn();
    const log = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    api.add.mockRejectedValueOnce(new Error('编号已存在'));
    open({ mode: 'add' }, formModel(), { onClose });
    await screen.findByLabelText('住院号');
    type('住院号', 'A-003');
    type('患者姓名', '赵六');
    fireEvent.click(screen.getByText('女'));
    await pickDisease('腰椎管狭窄症');
    clickOk();
    await waitFor(() => expect(onClose).toHaveBeenCalled());
    expect(log).toHaveBeenCalled();
    log.mockRestore();
  });

  it('SUBJ-18: the age is computed from the birth date as it changes', async () => {
    open({ mode: 'add' });
    await screen.findByLabelText('出生日期');
    expect((screen.getByLabelText('年龄') as HTMLInputElement).value).toBe('');
    await typeBirth('1980-05-20');
    const expected = String(ageFromBirth('1980-05-20', todayString(new Date())));
    await waitFor(() => expect((screen.getByLabelText('年龄') as HTMLInputElement).value).toBe(expected));
    expect((screen.getByLabelText('年龄') as HTMLInputElement).readOnly).toBe(true);
  });

  it('SUBJ-17: birth dates later than today minus 10 days cannot be picked', async () => {
    const today = todayString(new Date());
    const latest = latestBirthDate(today);
    expect(isBirthDisabled(dayjs(latest), today)).toBe(false);
    expect(isBirthDisabled(dayjs(latest).add(1, 'day'), today)).toBe(true);
    expect(isBirthDisabled(dayjs(today), today)).toBe(true);

    open({ mode: 'add' });
    const input = await screen.findByLabelText('出生日期');
    fireEvent.mouseDown(input);
    fireEvent.focus(input);
    fireEvent.click(input);
    const todayCell = await waitFor(() => {
      const cell = document.querySelector(`td[title="${today}"]`);
      expect(cell).toBeTruthy();
      return cell!;
    });
    expect(todayCell.className).toContain('ant-picker-cell-disabled');
  });

  it('SUBJ-09: with serial numbers the code is hidden when adding, with the next code shown, and not sent', async () => {
    open({ mode: 'add' }, formModel({ enableSerialNumber: true, serialPreview: 'LSS-0007' }));
    expect(await screen.findByText('编号由系统自动生成，本次将为 LSS-0007')).toBeTruthy();
    expect(screen.queryByLabelText('住院号')).toBeNull();
    type('患者姓名', '钱七');
    fireEvent.click(screen.getByText('男'));
    await pickDisease('腰椎管狭窄症');
    clickOk();
    await waitFor(() => expect(api.add).toHaveBeenCalled());
    expect(api.add.mock.calls[0]![0]).not.toHaveProperty('identificationCode');
    expect(api.isCodeTaken).not.toHaveBeenCalled();
  });

  it('SUBJ-09/SUBJ-08: with serial numbers the code is locked in view and in edit', async () => {
    open({ mode: 'edit', subjectId: 41 }, formModel({ enableSerialNumber: true, serialPreview: 'LSS-0002' }));
    await waitFor(() => expect((screen.getByLabelText('住院号') as HTMLInputElement).value).toBe('LSS-0001'));
    expect((screen.getByLabelText('住院号') as HTMLInputElement).disabled).toBe(true);
    expect((screen.getByLabelText('患者姓名') as HTMLInputElement).disabled).toBe(false);
    expect(screen.getByText('编号由系统自动生成，不能修改')).toBeTruthy();
  });

  it('SUBJ-08/SUBJ-06/SUBJ-07: 查看患者 locks the fields; 编辑 switches to 编辑患者 and saving sends PUT with the id', async () => {
    const onClose = vi.fn();
    open({ mode: 'crflook', subjectId: 41 }, formModel(), { onClose });
    expect(await screen.findByText('查看患者')).toBeTruthy();
    await waitFor(() => expect((screen.getByLabelText('患者姓名') as HTMLInputElement).value).toBe('张三'));
    expect(api.get).toHaveBeenCalledWith(41);
    expect((screen.getByLabelText('患者姓名') as HTMLInputElement).disabled).toBe(true);
    expect((screen.getByLabelText('手机号') as HTMLInputElement).disabled).toBe(true);
    expect((screen.getByLabelText('年龄') as HTMLInputElement).value).toBe(
      String(ageFromBirth('1960-03-15', todayString(new Date()))),
    );

    fireEvent.click(within(dialog()).getByRole('button', { name: '编辑' }));
    expect(await screen.findByText('编辑患者')).toBeTruthy();
    expect((screen.getByLabelText('患者姓名') as HTMLInputElement).disabled).toBe(false);
    expect((screen.getByLabelText('住院号') as HTMLInputElement).disabled).toBe(false);
    expect(within(dialog()).queryByRole('button', { name: '编辑' })).toBeNull();
    type('手机号', '13700001111');
    clickOk();
    await waitFor(() =>
      expect(api.update).toHaveBeenCalledWith({
        id: 41,
        identificationCode: 'LSS-0001',
        subjectName: '张三',
        gender: 1,
        birth: '1960-03-15',
        mobile: '13700001111',
        idNumber: null,
        diseaseCode: 'LSS',
        deptId: null,
      }),
    );
    expect(api.isCodeTaken).not.toHaveBeenCalled();
    await waitFor(() => expect(onClose).toHaveBeenCalled());
  });

  it('SUBJ-22/SUBJ-07: opened from a casebook it reads the patient by record; without the edit right there is no 编辑', async () => {
    open({ mode: 'crflook', subjectRecordId: 77 }, formModel(), { canEdit: false });
    await waitFor(() => expect((screen.getByLabelText('患者姓名') as HTMLInputElement).value).toBe('张三'));
    expect(api.byRecord).toHaveBeenCalledWith(77);
    expect(within(dialog()).queryByRole('button', { name: '编辑' })).toBeNull();
    expect(within(dialog()).getByRole('button', { name: '确定' })).toBeTruthy();
  });

  describe('patient identifiers (PIPL)', () => {
    const withIdNumber = (required = false) =>
      formModel({
        baseConfig: [
          ...BASE_CONFIG,
          { name: 'idNumber', header: '身份证号', display: true, required },
        ] as SubjectFormModel['baseConfig'],
      });
    const ID = `11010519600315001${residentIdCheckChar('11010519600315001')}`;
    const MASKED: Subject = {
      ...PATIENT,
      subjectName: '张*',
      birth: '1960-**-**',
      mobile: '139****5678',
      idNumber: `110105********${ID.slice(-4)}`,
      identifiersMasked: true,
    };

    it('the 身份证号 field shows only when the base config displays it, checked with the resident-ID rule', async () => {
      open({ mode: 'add' });
      await screen.findByLabelText('住院号');
      expect(screen.queryByLabelText('身份证号')).toBeNull();
      cleanup();

      open({ mode: 'add' }, withIdNumber());
      await screen.findByLabelText('身份证号');
      type('身份证号', `${ID.slice(0, 17)}${ID.endsWith('0') ? '1' : '0'}`);
      await waitFor(() => expect(screen.getByText('请输入正确的身份证号码')).toBeTruthy());
      type('身份证号', ID.toLowerCase());
      await waitFor(() => expect(screen.queryByText('请输入正确的身份证号码')).toBeNull());
      type('住院号', 'A-010');
      type('患者姓名', '孙八');
      fireEvent.click(screen.getByText('男'));
      await pickDisease('腰椎管狭窄症');
      clickOk();
      await waitFor(() => expect(api.add).toHaveBeenCalled());
      expect(api.add.mock.calls[0]![0]).toMatchObject({ idNumber: ID.toUpperCase() });
    });

    it('masked values are shown, not filled in: saving without typing leaves them out of the PUT, so the server keeps them', async () => {
      open({ mode: 'edit', subjectId: 41 }, withIdNumber(true), { patient: MASKED });
      await waitFor(() => expect((screen.getByLabelText('患者姓名') as HTMLInputElement).placeholder).toBe('张*'));
      expect((screen.getByLabelText('患者姓名') as HTMLInputElement).value).toBe('');
      expect((screen.getByLabelText('手机号') as HTMLInputElement).placeholder).toBe('139****5678');
      expect((screen.getByLabelText('身份证号') as HTMLInputElement).placeholder).toBe(MASKED.idNumber);
      expect((screen.getByLabelText('出生日期') as HTMLInputElement).placeholder).toBe('1960-**-**');
      expect((screen.getByLabelText('年龄') as HTMLInputElement).value).toBe('66');
      expect(screen.getAllByText('已隐藏，不填写则保持不变')).toHaveLength(4);
      await pickDisease('腰椎滑脱症');
      clickOk();
      await waitFor(() => expect(api.update).toHaveBeenCalled());
      const body = api.update.mock.calls[0]![0] as Record<string, unknown>;
      expect(body).toMatchObject({ id: 41, gender: 1, diseaseCode: 'LDS' });
      for (const key of ['subjectName', 'birth', 'mobile', 'idNumber']) expect(body).not.toHaveProperty(key);
      expect(JSON.stringify(body)).not.toContain('*');
    });

    it('a new value typed over a mask is sent; the others stay out', async () => {
      open({ mode: 'edit', subjectId: 41 }, formModel(), { patient: MASKED });
      await waitFor(() =>
        expect((screen.getByLabelText('手机号') as HTMLInputElement).placeholder).toBe('139****5678'),
      );
      type('手机号', '13700001111');
      clickOk();
      await waitFor(() => expect(api.update).toHaveBeenCalled());
      const body = api.update.mock.calls[0]![0] as Record<string, unknown>;
      expect(body).toMatchObject({ mobile: '13700001111' });
      expect(body).not.toHaveProperty('subjectName');
      expect(body).not.toHaveProperty('birth');
    });

    it('in 查看患者 the masks are shown in the locked fields without the edit hint', async () => {
      open({ mode: 'crflook', subjectId: 41 }, formModel(), { patient: MASKED });
      await waitFor(() => expect((screen.getByLabelText('患者姓名') as HTMLInputElement).placeholder).toBe('张*'));
      expect((screen.getByLabelText('患者姓名') as HTMLInputElement).disabled).toBe(true);
      expect(screen.queryByText('已隐藏，不填写则保持不变')).toBeNull();
    });
  });
});
