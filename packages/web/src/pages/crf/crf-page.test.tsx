import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router';
import type { CrfDefinition } from '@ecrf/core';
import type { CrfMenuNode, CrfRecordDetail } from '../../api/crf.api';
import { useCrfLayout } from '../../layouts/crf-layout';
import type * as CrfApi from '../../api/crf.api';
import { renderWithProviders } from '../../test/render';
import CrfRecordPage from '.';

const definition = (title: string): CrfDefinition => ({
  title,
  option: {},
  children: [{ name: `${title}_note`, title: `${title}备注`, type: 'input', option: {}, children: [] }],
});

const formNode = (crfId: number, title: string, state: number, repeat = 1, count = 0): CrfMenuNode => ({
  id: `crf-${crfId}`,
  title,
  type: 1,
  crfId,
  repeat,
  state,
  count,
  childrens: [],
  btns: [],
});

const MENU: CrfMenuNode[] = [
  {
    id: 'stage-1',
    title: '基线',
    type: 0,
    btns: [],
    childrens: [formNode(11, '人口学资料', 2), formNode(12, '生命体征', 9)],
  },
  { id: 'stage-2', title: '手术', type: 0, btns: [], childrens: [formNode(13, '手术记录', 1)] },
  { id: 'stage-3', title: '术后随访', type: 0, btns: [], childrens: [formNode(14, '术后随访', 0, 0, 2)] },
];

const TITLES: Record<number, string> = { 11: '人口学资料', 12: '生命体征', 13: '手术记录', 14: '术后随访' };
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
  test: false,
};

function detail(crfId: number, recordId: number | null): CrfRecordDetail {
  return {
    crf: { id: crfId, title: TITLES[crfId]!, version: 1, option: {}, definition: definition(TITLES[crfId]!) },
    subject: PATIENT,
    subjectRecord: { id: 7, creater: '管理员', state: 0 },
    subjectState: { crfId, subjectRecordId: 7, state: 0 },
    crfDataRecord: recordId
      ? {
          id: recordId,
          crfDataRecordId: recordId,
          version: 1,
          crfVersion: 1,
          state: 1,
          values: {},
          sdv: {},
          createTime: '',
          updateTime: '',
        }
      : null,
    crfDataRecords: [],
    crfDoubts: [],
    initialValues: recordId ? null : {},
    repeat: crfId === 14 ? 0 : 1,
    permissions: { save: true, submit: true, sdv: false, sign: false, doubt: false },
    signature: null,
  };
}

const api = vi.hoisted(() => ({
  menu: vi.fn(),
  patientInfo: vi.fn(),
  studyDoubtFlag: vi.fn(),
  detail: vi.fn(),
  dataList: vi.fn(),
}));
type CrfApiModule = typeof CrfApi;
vi.mock('../../api/crf.api', async (importOriginal) => {
  const original = await importOriginal<CrfApiModule>();
  return { ...original, crfRecordApi: { ...original.crfRecordApi, ...api } };
});

const ok = <T,>(data: T) => ({ code: 200, msg: '', data });

interface PageOptions {
  menu?: CrfMenuNode[];
  patient?: Omit<typeof PATIENT, 'openId'> & { openId: string | null };
  doubtFlag?: string;
  /** Changes the detail each form answers. */
  edit?: (detail: CrfRecordDetail) => CrfRecordDetail;
  /** Entries before the casebook, as when it was opened from another page. */
  before?: string[];
}

function renderPage(url: string, records: number[] = [], options: PageOptions = {}) {
  api.menu.mockResolvedValue(ok(options.menu ?? MENU));
  api.patientInfo.mockResolvedValue(ok(options.patient ?? PATIENT));
  api.studyDoubtFlag.mockResolvedValue(ok(options.doubtFlag ?? '1'));
  const edit = options.edit ?? ((d: CrfRecordDetail) => d);
  api.detail.mockImplementation(async (_sr: number, crfId: number, recordId?: number | null) =>
    ok(edit(detail(crfId, recordId ?? null))),
  );
  api.dataList.mockResolvedValue(
    ok(
      records.map((id) => ({
        crfDataRecordId: id,
        state: 1,
        version: 1,
        createTime: '',
        updateTime: '',
        creater: '管理员',
        summary: '',
      })),
    ),
  );
  const before = options.before ?? [];
  const router = createMemoryRouter(
    [
      { path: '/crf/:subjectRecordId', element: <CrfRecordPage /> },
      { path: '*', element: <div>其他页面</div> },
    ],
    { initialEntries: [...before, url], initialIndex: before.length },
  );
  renderWithProviders(<RouterProvider router={router} />);
  return router;
}

const formTitle = () => document.querySelector('.crf-form-title')?.textContent ?? '';

/** The shell's top bar slot the form's buttons are rendered into. */
function topBar(): HTMLElement {
  const slot = document.createElement('div');
  document.body.appendChild(slot);
  useCrfLayout.setState({ slot });
  return slot;
}

const withButtons = (menu: CrfMenuNode[], codes: string[]): CrfMenuNode[] =>
  menu.map((stage) => ({
    ...stage,
    childrens: stage.childrens?.map((form) => ({ ...form, btns: codes.map((code) => ({ code, title: code })) })),
  }));

afterEach(() => {
  cleanup();
  vi.clearAllMocks();
  useCrfLayout.setState({ folded: false, slot: null });
  document.body.innerHTML = '';
});

describe('CRF page', () => {
  it('CRF-12: without crfId the first form of the tree opens and the address names it', async () => {
    const router = renderPage('/crf/7');
    await waitFor(() => expect(router.state.location.search).toBe('?crfId=11'));
    await waitFor(() => expect(formTitle()).toContain('人口学资料'));
    expect(api.detail).toHaveBeenCalledWith(7, 11, null);
  });

  it('CRF-12: with crfId that form opens; a form chosen in the tree becomes the address', async () => {
    const router = renderPage('/crf/7?crfId=13');
    await waitFor(() => expect(formTitle()).toContain('手术记录'));
    expect(document.querySelector('.ant-tree-treenode-selected')?.textContent).toContain('手术记录');
    fireEvent.click(screen.getByText('生命体征'));
    await waitFor(() => expect(router.state.location.search).toBe('?crfId=12'));
    await waitFor(() => expect(formTitle()).toContain('生命体征'));
  });

  it('CRF-04/CRF-07/CRF-08: the sidebar shows the patient and every form with its state icon; repeatable forms are marked', async () => {
    renderPage('/crf/7?crfId=11');
    await screen.findByText('张建国');
    expect(screen.getByText('LSS-0001')).toBeTruthy();
    const states = Object.fromEntries(
      [...document.querySelectorAll('.crf-menu-form')].map((el) => [
        el.querySelector('.crf-menu-form-title')!.textContent,
        el.querySelector('.crf-state-icon')!.getAttribute('aria-label'),
      ]),
    );
    expect(states).toEqual({ 人口学资料: '已提交', 生命体征: '存在质疑', 手术记录: '未完成', 术后随访: '未开始' });
    const repeatable = [...document.querySelectorAll('.crf-menu-form')].filter((el) =>
      within(el as HTMLElement).queryByLabelText('可重复表单'),
    );
    expect(repeatable.map((el) => el.querySelector('.crf-menu-form-title')!.textContent)).toEqual(['术后随访']);
    fireEvent.mouseEnter(document.querySelector('.crf-menu-form[data-crf-id="12"] .crf-state-icon')!);
    await screen.findByText('存在质疑：有未关闭的质疑');
  });

  it('CRF-11: the fold toggle switches the sidebar between 282 and 50', async () => {
    renderPage('/crf/7?crfId=11');
    await screen.findByText('张建国');
    const sider = document.querySelector('.crf-sider') as HTMLElement;
    expect(sider.style.width).toBe('282px');
    fireEvent.click(screen.getByRole('button', { name: '收起菜单' }));
    await waitFor(() => expect(sider.style.width).toBe('50px'));
    // Folded, the forms stay reachable by their state icons.
    expect(screen.getByRole('button', { name: '生命体征' })).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: '展开菜单' }));
    await waitFor(() => expect(sider.style.width).toBe('282px'));
  });

  it('CRF-14/CRF-24: a repeatable form lists its records and opens the latest; without records a new one', async () => {
    const router = renderPage('/crf/7?crfId=14', [31, 32]);
    await waitFor(() => expect(router.state.location.search).toBe('?crfId=14&crfDataRecordId=32'));
    await screen.findByText('记录列表');
    expect(screen.getByText('第 2 条')).toBeTruthy();
    await waitFor(() => expect(api.detail).toHaveBeenCalledWith(7, 14, 32));
    cleanup();

    const empty = renderPage('/crf/7?crfId=14', []);
    await waitFor(() => expect(empty.state.location.search).toBe('?crfId=14&crfDataRecordId=new'));
    await screen.findByText('新记录（未保存）');
  });

  it('CRF-05: the sidebar shows a 30 px QR thumbnail; a patient with an openId shows another picture', async () => {
    renderPage('/crf/7?crfId=11');
    const thumb = await screen.findByRole('button', { name: '查看患者二维码' });
    const image = await within(thumb).findByRole('img', { name: '患者二维码' });
    expect(image.getAttribute('width')).toBe('30');
    expect(thumb.className).not.toContain('crf-qr-thumb-bound');
    cleanup();

    renderPage('/crf/7?crfId=11', [], { patient: { ...PATIENT, openId: 'o-wx-1' } });
    const bound = await screen.findByRole('button', { name: '查看患者二维码' });
    expect(bound.className).toContain('crf-qr-thumb-bound');
    expect(within(bound).queryByRole('img', { name: '患者二维码' })).toBeNull();
  });

  it('CRF-06: the thumbnail opens 患者二维码 with the QR code of the patient, the CRF name and the recorder', async () => {
    renderPage('/crf/7?crfId=12');
    await waitFor(() => expect(formTitle()).toContain('生命体征'));
    fireEvent.click(screen.getByRole('button', { name: '查看患者二维码' }));
    const dialog = await screen.findByRole('dialog', { name: '患者二维码' });
    const image = await within(dialog).findByRole('img', { name: '患者二维码' });
    expect(image.getAttribute('src')).toMatch(/^data:image\/png;base64,/);
    expect(within(dialog).getByText('张建国（LSS-0001）')).toBeTruthy();
    expect(within(dialog).getByText('CRF名称')).toBeTruthy();
    expect(within(dialog).getByText('生命体征', { selector: '.ant-descriptions-item-content' })).toBeTruthy();
    expect(within(dialog).getByText('记录人')).toBeTruthy();
    expect(within(dialog).getByText('管理员')).toBeTruthy();
  });

  it('CRF-10: 返回 goes back one page', async () => {
    const router = renderPage('/crf/7?crfId=11', [], { before: ['/project/5/subject?pageNum=2'] });
    await screen.findByText('张建国');
    fireEvent.click(screen.getByRole('button', { name: '返回' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/project/5/subject'));
    expect(router.state.location.search).toBe('?pageNum=2');
  });

  it('CRF-15: the top bar has 打印 and 影像, 识别 only with an identify type, 质疑 only with queries on', async () => {
    let bar = topBar();
    renderPage('/crf/7?crfId=11', [], {
      menu: withButtons(MENU, ['project.subject.dicom', 'study.iconBtn.doubt']),
      edit: (d) => ({ ...d, crf: { ...d.crf, option: { ...d.crf.option, identifyType: 1, identifyId: 3 } } }),
    });
    await waitFor(() => expect(formTitle()).toContain('人口学资料'));
    for (const name of ['打印', '影像', '识别', '质疑']) {
      await within(bar).findByRole('button', { name: new RegExp(name) });
    }
    cleanup();
    document.body.innerHTML = '';

    bar = topBar();
    renderPage('/crf/7?crfId=11', [], {
      menu: withButtons(MENU, ['project.subject.dicom', 'study.iconBtn.doubt']),
      doubtFlag: '0',
    });
    await waitFor(() => expect(formTitle()).toContain('人口学资料'));
    await within(bar).findByRole('button', { name: /打印/ });
    expect(within(bar).queryByRole('button', { name: /识别/ })).toBeNull();
    expect(within(bar).queryByRole('button', { name: /质疑/ })).toBeNull();
  });

  it('CRF-18: the page holds the detail, the form list, the record table, the doubt button and the SDV toggle', async () => {
    const bar = topBar();
    const router = renderPage('/crf/7?crfId=14', [31, 32], {
      menu: withButtons(MENU, ['study.iconBtn.doubt', 'business.crf.sdv']),
      edit: (d) => ({ ...d, permissions: { ...d.permissions, sdv: true } }),
    });
    // crfFillTable with its crfDataRecords: the latest record opens
    await waitFor(() => expect(router.state.location.search).toBe('?crfId=14&crfDataRecordId=32'));
    await screen.findByText('记录列表');
    expect(screen.getByText('第 1 条')).toBeTruthy();
    expect(screen.getByText('第 2 条')).toBeTruthy();
    // detail
    await waitFor(() => expect(formTitle()).toContain('术后随访'), { timeout: 5000 });
    // crfList
    expect(document.querySelectorAll('.crf-menu-form')).toHaveLength(4);
    // showDoubtBtn
    await within(bar).findByRole('button', { name: /质疑/ });
    // the SDV icon toggle
    const sdv = () => within(bar).getByRole('button', { name: /SDV/ });
    fireEvent.click(sdv());
    await waitFor(() => expect(sdv().className).toContain('ant-btn-primary'));
    fireEvent.click(sdv());
    await waitFor(() => expect(sdv().className).not.toContain('ant-btn-primary'));
  });

  it('CRF-19: a failed detail load ends the spinner with 表单加载失败 and 重试', async () => {
    renderPage('/crf/7?crfId=11');
    api.detail.mockRejectedValueOnce(new Error('network'));
    await screen.findByText('表单加载失败');
    expect(document.querySelector('.crf-loading')).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: /重\s*试/ }));
    await waitFor(() => expect(formTitle()).toContain('人口学资料'));
  });

  it('CRF-19: a failed record-table load ends the spinner too; 重试 reads it again and opens the latest record', async () => {
    api.dataList.mockRejectedValueOnce(new Error('network'));
    const router = renderPage('/crf/7?crfId=14', [31, 32]);
    await screen.findByText('表单加载失败');
    expect(document.querySelector('.crf-loading')).toBeNull();
    expect(document.querySelector('.ant-spin-spinning')).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: /重\s*试/ }));
    await waitFor(() => expect(router.state.location.search).toBe('?crfId=14&crfDataRecordId=32'));
    await waitFor(() => expect(formTitle()).toContain('术后随访'));
  });
});
