import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { DEFAULT_MISSING_CODES, type MissingCode } from '@ecrf/core';
import type * as MissingCodesApi from '../../../../api/missing-codes.api';
import type { Study } from '../../../../api/study.api';
import { renderWithProviders } from '../../../../test/render';
import { useSession } from '../../../../stores/session.store';
import { MissingCodesPanel } from './missing-codes-panel';

const api = vi.hoisted(() => ({
  get: vi.fn(),
  put: vi.fn(async (_studyId: number, codes: MissingCode[]) => ({ code: 200, msg: '保存成功', data: { codes } })),
}));
vi.mock('../../../../api/missing-codes.api', async (importOriginal) => {
  const original = await importOriginal<typeof MissingCodesApi>();
  return { ...original, missingCodesApi: { get: api.get, put: api.put } };
});

const study = { id: 9 } as Study;

afterEach(() => {
  cleanup();
  vi.clearAllMocks();
  useSession.setState({ permissions: [], buttonPermissions: [] });
});

describe('项目配置 · 缺失原因', () => {
  it('lists the study’s codes; a data manager adds one, removes one and saves the whole list', async () => {
    api.get.mockResolvedValue({ code: 200, msg: '', data: { codes: DEFAULT_MISSING_CODES } });
    useSession.setState({ permissions: ['study:config'], buttonPermissions: [] });
    renderWithProviders(<MissingCodesPanel study={study} />);
    expect(((await screen.findByLabelText('第 1 个缺失原因的名称')) as HTMLInputElement).value).toBe('未查');

    fireEvent.click(screen.getByRole('button', { name: '删除第 4 个缺失原因' }));
    fireEvent.click(screen.getByRole('button', { name: /添加缺失原因/ }));
    fireEvent.change(screen.getByLabelText('第 4 个缺失原因的代码'), { target: { value: 'nr' } });
    fireEvent.change(screen.getByLabelText('第 4 个缺失原因的名称'), { target: { value: '未记录' } });
    fireEvent.click(screen.getByRole('button', { name: /保\s*存/ }));
    await waitFor(() =>
      expect(api.put).toHaveBeenCalledWith(9, [
        { code: 'ND', label: '未查' },
        { code: 'NA', label: '不适用' },
        { code: 'UNK', label: '未知' },
        { code: 'NR', label: '未记录' },
      ]),
    );
    expect(await screen.findByText('保存成功')).toBeTruthy();
  });

  it('core’s rules are checked before sending: a repeated code is named and nothing is sent', async () => {
    api.get.mockResolvedValue({ code: 200, msg: '', data: { codes: DEFAULT_MISSING_CODES.slice(0, 1) } });
    useSession.setState({ permissions: ['study:config'], buttonPermissions: [] });
    renderWithProviders(<MissingCodesPanel study={study} />);
    await screen.findByLabelText('第 1 个缺失原因的代码');
    fireEvent.click(screen.getByRole('button', { name: /添加缺失原因/ }));
    fireEvent.change(screen.getByLabelText('第 2 个缺失原因的代码'), { target: { value: 'ND' } });
    fireEvent.change(screen.getByLabelText('第 2 个缺失原因的名称'), { target: { value: '没查' } });
    fireEvent.click(screen.getByRole('button', { name: /保\s*存/ }));
    expect(await screen.findByText('缺失原因代码重复：ND')).toBeTruthy();
    expect(api.put).not.toHaveBeenCalled();
  });

  it('without 项目配置 the codes are shown but cannot be changed', async () => {
    api.get.mockResolvedValue({ code: 200, msg: '', data: { codes: DEFAULT_MISSING_CODES } });
    renderWithProviders(<MissingCodesPanel study={study} />);
    const code = (await screen.findByLabelText('第 1 个缺失原因的代码')) as HTMLInputElement;
    expect(code.value).toBe('ND');
    expect(code.disabled).toBe(true);
    expect((screen.getByRole('button', { name: /添加缺失原因/ }) as HTMLButtonElement).disabled).toBe(true);
    expect((screen.getByRole('button', { name: /保\s*存/ }) as HTMLButtonElement).disabled).toBe(true);
  });
});
