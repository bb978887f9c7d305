import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { MemoryRouter, Route, Routes } from 'react-router';
import { useSession } from '../../../stores/session.store';
import { renderWithProviders } from '../../../test/render';
import WechatDiseasePage from './disease';

const NOTE = { diseaseCode: 'LSS', diseaseName: '腰椎管狭窄症', title: '', content: '', updateTime: null };

const api = vi.hoisted(() => ({
  diseases: vi.fn(async () => ({ code: 200, msg: '', data: [NOTE] })),
  saveDisease: vi.fn(async (body: { title: string; content: string }) => ({
    code: 200,
    msg: '',
    data: [{ ...NOTE, title: body.title, content: body.content, updateTime: '2026-01-02T03:04:05Z' }],
  })),
}));

vi.mock('../../../api/wechat.api', () => ({ wechatApi: api }));

function renderPage() {
  renderWithProviders(
    <MemoryRouter initialEntries={['/project/5/wechat/disease']}>
      <Routes>
        <Route path="/project/:id/wechat/disease" element={<WechatDiseasePage />} />
      </Routes>
    </MemoryRouter>,
  );
}

const lineOf = (text: string) =>
  waitFor(() => {
    const found = screen.getAllByRole('row').find((r) => r.textContent?.includes(text));
    if (!found) throw new Error(`no row ${text} yet`);
    return found;
  });

afterEach(() => {
  cleanup();
  vi.clearAllMocks();
  useSession.setState({ permissions: [] });
});

describe('公众号病种', () => {
  it('KNOW-03: lists every disease of the study unpaged; 编辑 writes its education and the row shows it', async () => {
    useSession.setState({ permissions: ['study:config'] });
    renderPage();
    const line = await lineOf('LSS');
    expect(within(line).getByText('未设置')).toBeTruthy();
    expect(screen.queryByText('共 1 条')).toBeNull();
    fireEvent.click(within(line).getByRole('button', { name: '编辑' }));
    const dialog = await screen.findByRole('dialog');
    expect((within(dialog).getByLabelText('标题') as HTMLInputElement).value).toBe('腰椎管狭窄症');
    fireEvent.change(within(dialog).getByLabelText('标题'), { target: { value: '术后康复须知' } });
    fireEvent.change(within(dialog).getByLabelText('内容'), { target: { value: '术后三个月内避免弯腰搬重物。' } });
    fireEvent.click(within(dialog).getByRole('button', { name: /确\s?定|OK/ }));
    await waitFor(() =>
      expect(api.saveDisease).toHaveBeenCalledWith({
        studyId: 5,
        diseaseCode: 'LSS',
        title: '术后康复须知',
        content: '术后三个月内避免弯腰搬重物。',
      }),
    );
    await lineOf('术后康复须知');
    await screen.findByText('保存成功');
  });

  it('without study:config 编辑 is disabled', async () => {
    renderPage();
    const line = await lineOf('LSS');
    expect(within(line).getByRole('button', { name: '编辑' })).toHaveProperty('disabled', true);
  });
});
