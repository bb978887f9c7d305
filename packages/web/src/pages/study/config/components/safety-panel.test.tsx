import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import type { Study } from '../../../../api/study.api';
import { renderWithProviders } from '../../../../test/render';
import { useSession } from '../../../../stores/session.store';
import { SafetyPanel } from './safety-panel';

const api = vi.hoisted(() => ({
  module: vi.fn(async (_studyId: number) => ({
    code: 200,
    msg: '',
    data: { enabled: false, aeCrfId: null as number | null },
  })),
  setModule: vi.fn(async (_studyId: number, enabled: boolean) => ({
    code: 200,
    msg: enabled ? '不良事件模块已开启' : '不良事件模块已关闭',
    data: { enabled, aeCrfId: 41 },
  })),
  options: vi.fn(async (_studyId: number) => ({
    code: 200,
    msg: '',
    data: [
      { id: 4, title: '生命体征', version: 1 },
      { id: 41, title: '不良事件记录', version: 1 },
    ],
  })),
}));
vi.mock('../../../../api/safety.api', () => ({ safetyApi: { module: api.module, setModule: api.setModule } }));
vi.mock('../../../../api/study.api', () => ({ crfApi: { options: api.options } }));

const study = { id: 9 } as Study;

afterEach(() => {
  cleanup();
  vi.clearAllMocks();
  useSession.setState({ permissions: [], buttonPermissions: [] });
});

describe('项目配置 · 不良事件', () => {
  it('turns the module on, then names the AE form and explains the 24-hour clock', async () => {
    useSession.setState({ permissions: ['study:config'], buttonPermissions: [] });
    renderWithProviders(<SafetyPanel study={study} />);
    expect(screen.getByText(/即开始 24 小时报告计时/)).toBeTruthy();
    const toggle = await screen.findByRole('switch', { name: '开启不良事件模块' });
    await waitFor(() => expect(toggle.getAttribute('aria-checked')).toBe('false'));
    expect(screen.queryByText('不良事件记录', { selector: '.ant-descriptions-item-content' })).toBeNull();

    api.module.mockResolvedValue({ code: 200, msg: '', data: { enabled: true, aeCrfId: 41 } });
    fireEvent.click(toggle);
    await waitFor(() => expect(api.setModule).toHaveBeenCalledWith(9, true));
    expect(await screen.findByText('不良事件模块已开启')).toBeTruthy();
    expect(await screen.findByText('不良事件记录', { selector: '.ant-descriptions-item-content' })).toBeTruthy();
    expect(toggle.getAttribute('aria-checked')).toBe('true');
  });

  it('shows the switch disabled without 项目配置', async () => {
    renderWithProviders(<SafetyPanel study={study} />);
    const toggle = await screen.findByRole('switch', { name: '开启不良事件模块' });
    expect((toggle as HTMLButtonElement).disabled).toBe(true);
    fireEvent.click(toggle);
    expect(api.setModule).not.toHaveBeenCalled();
  });
});
