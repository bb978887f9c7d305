import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import type { CrfOverview, CrfPatient } from '../../../api/crf.api';
import type * as CrfApi from '../../../api/crf.api';
import { renderWithProviders } from '../../../test/render';
import { OverviewDialog } from './overview-dialog';

const api = vi.hoisted(() => ({ overview: vi.fn(), downloadFile: vi.fn() }));
vi.mock('../../../api/crf.api', async (importOriginal) => {
  const original = await importOriginal<typeof CrfApi>();
  return { ...original, crfRecordApi: { ...original.crfRecordApi, ...api } };
});

const PATIENT = {
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
  qrCode: 'f00d',
  state: 0,
  creater: '管理员',
  createTime: '',
} as CrfPatient;

const OVERVIEW: CrfOverview = {
  subject: PATIENT,
  menu: [],
  crfs: [
    {
      crfId: 12,
      title: '生命体征',
      option: {},
      definition: {
        title: '生命体征',
        option: {},
        children: [
          { name: 'hr', title: '心率', type: 'input', option: {}, children: [] },
          { name: 'note', title: '备注', type: 'input', option: {}, children: [] },
        ],
      },
      records: [{ crfDataRecordId: 41, values: { hr: '72' }, state: 1 }],
    },
  ],
};

afterEach(() => {
  cleanup();
  vi.clearAllMocks();
});

function renderDialog(overview: CrfOverview = OVERVIEW) {
  api.overview.mockResolvedValue({ code: 200, msg: '', data: overview });
  renderWithProviders(<OverviewDialog open subjectRecordId={7} scope={{ kind: 'all' }} onClose={() => {}} />);
}

/** The first row of the form's table: in the horizontal layout a label beside its value, in the vertical one labels only. */
const firstRowCells = () =>
  [...document.querySelector('.crf-overview-section .ant-descriptions-row')!.children].map((cell) =>
    cell.classList.contains('ant-descriptions-item-label') ? 'label' : 'content',
  );

describe('CRF概览', () => {
  it('PRINT-04: switches between the horizontal and the vertical layout, and shows or hides empty values', async () => {
    renderDialog();
    await screen.findByText('72');
    expect(firstRowCells()).toEqual(['label', 'content', 'label', 'content']);
    fireEvent.click(screen.getByText('纵向'));
    await waitFor(() => expect(firstRowCells().every((cell) => cell === 'label')).toBe(true));
    fireEvent.click(screen.getByText('横向'));
    await waitFor(() => expect(firstRowCells()[1]).toBe('content'));

    expect(screen.getByText('备注')).toBeTruthy();
    expect(screen.getByText('未填写')).toBeTruthy();
    fireEvent.click(screen.getByRole('switch', { name: '显示空值' }));
    await waitFor(() => expect(screen.queryByText('备注')).toBeNull());
    expect(screen.queryByText('未填写')).toBeNull();
    expect(screen.getByText('心率')).toBeTruthy();
  });

  it('PRINT-06: 全屏 widens the dialog from 80% to 100%; 退出全屏 brings it back', async () => {
    renderDialog();
    await screen.findByText('72');
    const modal = () => document.querySelector<HTMLElement>('.ant-modal')!;
    expect(modal().style.width).toBe('80%');
    fireEvent.click(screen.getByRole('button', { name: /全屏/ }));
    await waitFor(() => expect(modal().style.width).toBe('100%'));
    fireEvent.click(screen.getByRole('button', { name: /退出全屏/ }));
    await waitFor(() => expect(modal().style.width).toBe('80%'));
  });

  it('UPL-19: a stored image whose download fails is logged and shown in its place as 图片加载失败', async () => {
    const log = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    api.downloadFile.mockRejectedValue(new Error('network'));
    renderDialog({
      ...OVERVIEW,
      crfs: [
        {
          crfId: 15,
          title: '影像学检查',
          option: {},
          definition: {
            title: '影像学检查',
            option: {},
            children: [{ name: 'xray', title: '正位片', type: 'imageUpload', option: {}, children: [] }],
          },
          records: [
            {
              crfDataRecordId: 51,
              values: {
                xray: JSON.stringify([{ uploadTime: '2024-03-01 10:00:00', remarks: '', dialogImgUrl: 'a1b2c3' }]),
              },
              state: 1,
            },
          ],
        },
      ],
    });
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('图片加载失败');
    expect(api.downloadFile).toHaveBeenCalledWith('a1b2c3');
    expect(log).toHaveBeenCalledWith('图片加载失败', 'a1b2c3', expect.any(Error));
    log.mockRestore();
  });

  it('shows each signature of the casebook: signer, date and time in the study’s zone, meaning; a voided one as 签名已失效', async () => {
    renderDialog({
      ...OVERVIEW,
      timeZone: 'Asia/Shanghai',
      // Newest first, as the server answers.
      signatures: [
        {
          id: 9,
          signer: '张医生',
          meaning: '确认数据真实准确',
          signedAt: '2026-12-07T07:10:00.000Z',
          valid: true,
          invalidatedAt: null,
          invalidatedReason: null,
        },
        {
          id: 8,
          signer: '张医生',
          meaning: '确认数据真实准确',
          signedAt: '2026-12-07T06:32:40.000Z',
          valid: false,
          invalidatedAt: '2026-12-07T07:01:05.000Z',
          invalidatedReason: '表单“生命体征”的数据在签名后被修改',
        },
      ],
    });
    const section = await screen.findByRole('region', { name: '电子签名' });
    const lines = [...section.querySelectorAll('li')].map((li) => li.textContent);
    expect(lines).toEqual([
      '签名已失效（数据修改于 2026-12-07 15:01）原研究者签名：张医生 2026-12-07 14:32（确认数据真实准确）',
      '研究者签名：张医生 2026-12-07 15:10（确认数据真实准确）',
    ]);
    expect(screen.getByText(/^签名已失效/).getAttribute('title')).toBe('表单“生命体征”的数据在签名后被修改');
  });

  it('shows no signature section for a casebook never signed', async () => {
    renderDialog({ ...OVERVIEW, signatures: [] });
    await screen.findByText('72');
    expect(screen.queryByText('电子签名')).toBeNull();
    expect(screen.queryByText(/研究者签名/)).toBeNull();
  });
});
