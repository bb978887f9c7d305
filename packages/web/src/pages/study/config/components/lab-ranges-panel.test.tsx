import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import type { LabRange } from '@ecrf/core';
import type * as LabRangesApi from '../../../../api/lab-ranges.api';
import type { Study } from '../../../../api/study.api';
import { renderWithProviders } from '../../../../test/render';
import { useSession } from '../../../../stores/session.store';
import { LabRangesPanel } from './lab-ranges-panel';

const range = (over: Partial<LabRange>): LabRange => ({
  id: 1,
  siteId: 11,
  siteName: '甲中心',
  analyte: 'WBC',
  analyteName: '白细胞计数',
  unit: '10^9/L',
  sex: null,
  ageMin: 18,
  ageMax: null,
  lower: 3.5,
  upper: 9.5,
  effectiveFrom: '2024-01-01',
  ...over,
});

const api = vi.hoisted(() => ({
  list: vi.fn(),
  create: vi.fn(),
  update: vi.fn(),
  remove: vi.fn(async () => ({ code: 200, msg: '参考范围已删除', data: null })),
  importFile: vi.fn(),
  template: vi.fn(),
}));
vi.mock('../../../../api/lab-ranges.api', async (importOriginal) => {
  const original = await importOriginal<typeof LabRangesApi>();
  return { ...original, labRangesApi: api };
});

const study = { id: 9, myRole: { permissions: ['btn:business.labRanges'] } } as unknown as Study;

afterEach(() => {
  cleanup();
  vi.clearAllMocks();
  useSession.setState({ permissions: [], buttonPermissions: [] });
});

const listed = () =>
  api.list.mockResolvedValue({
    code: 200,
    msg: '',
    data: {
      list: [range({}), range({ id: 2, siteId: 12, siteName: '乙中心', sex: 1, lower: 4, upper: 10 })],
      sites: [
        { deptId: 11, deptName: '甲中心' },
        { deptId: 12, deptName: '乙中心' },
      ],
    },
  });

describe('项目配置 · 参考范围', () => {
  it('lists every site’s ranges with sex and age band; a deletion asks for its reason before sending', async () => {
    listed();
    renderWithProviders(<LabRangesPanel study={study} />);
    expect(await screen.findByText('乙中心')).toBeTruthy();
    expect(screen.getAllByText('WBC')).toHaveLength(2);
    expect(screen.getByText('男')).toBeTruthy();
    fireEvent.click(screen.getAllByRole('button', { name: '删除参考范围 WBC' })[0]!);
    const dialog = await screen.findByRole('dialog');
    const ok = within(dialog).getByRole('button', { name: /确\s*定|OK/ }) as HTMLButtonElement;
    expect(ok.disabled).toBe(true);
    fireEvent.change(within(dialog).getByLabelText('原因'), { target: { value: '误录' } });
    fireEvent.click(ok);
    await waitFor(() => expect(api.remove).toHaveBeenCalledWith(9, 1, '误录'));
  });

  it('the import preview lists each refused row with its reason, and 导入 stays off until none is refused', async () => {
    listed();
    api.importFile.mockResolvedValue({
      code: 200,
      msg: '',
      data: {
        accepted: [range({})],
        refused: [{ row: 3, reason: '分中心“丙中心”不存在' }],
        imported: 0,
      },
    });
    const { container } = renderWithProviders(<LabRangesPanel study={study} />);
    await screen.findByText('乙中心');
    fireEvent.click(screen.getByRole('button', { name: /导入参考范围/ }));
    const dialog = await screen.findByRole('dialog');
    const input = (dialog.querySelector('input[type=file]') ?? container.querySelector('input[type=file]'))!;
    const file = new File(['x'], 'ranges.csv', { type: 'text/csv' });
    fireEvent.change(input, { target: { files: [file] } });
    fireEvent.click(within(dialog).getByRole('button', { name: /预\s*览/ }));
    expect(await within(dialog).findByText('分中心“丙中心”不存在')).toBeTruthy();
    expect(within(dialog).getByText('可导入 1 行')).toBeTruthy();
    expect(api.importFile).toHaveBeenCalledWith(9, file, true);
    expect((within(dialog).getByRole('button', { name: /导\s*入/ }) as HTMLButtonElement).disabled).toBe(true);
  });

  it('without 参考范围 the tab says so and reads nothing', async () => {
    renderWithProviders(<LabRangesPanel study={{ id: 9, myRole: { permissions: [] } } as unknown as Study} />);
    expect(await screen.findByText('您没有维护参考范围的权限')).toBeTruthy();
    expect(api.list).not.toHaveBeenCalled();
  });
});
