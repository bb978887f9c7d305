import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { DEFAULT_MESSAGE_RULES, type MessageRules } from '@ecrf/core';
import type * as MessagesApi from '../../../../api/messages.api';
import type { Study } from '../../../../api/study.api';
import { renderWithProviders } from '../../../../test/render';
import { MessageRulesPanel } from './message-rules-panel';

const api = vi.hoisted(() => ({
  rules: vi.fn(),
  saveRules: vi.fn(async (_studyId: number, rules: MessageRules) => ({ code: 200, msg: '保存成功', data: rules })),
}));
vi.mock('../../../../api/messages.api', async (importOriginal) => {
  const original = await importOriginal<typeof MessagesApi>();
  return { ...original, messagesApi: { rules: api.rules, saveRules: api.saveRules } };
});

const holder = {
  id: 9,
  timeZone: 'Asia/Shanghai',
  myRole: { permissions: ['btn:business.messages'] },
} as unknown as Study;
const reader = { id: 9, myRole: { permissions: [] } } as unknown as Study;

afterEach(() => {
  cleanup();
  vi.clearAllMocks();
});

describe('项目配置 · 患者提醒 (issue 38)', () => {
  it('shows the rules, the variables and a live preview; a holder of 患者提醒 changes them and saves (PUT)', async () => {
    api.rules.mockResolvedValue({ code: 200, msg: '', data: DEFAULT_MESSAGE_RULES });
    renderWithProviders(<MessageRulesPanel study={holder} />);
    const days = (await screen.findByLabelText('窗口前提醒天数')) as HTMLInputElement;
    expect(days.value).toBe('3');
    expect(screen.getByText('{patient}')).toBeTruthy();
    // The default wording, with sample values, until the study writes its own.
    expect(screen.getByLabelText('问卷邀请预览').textContent).toContain(
      '张*您好，请填写示例研究的问卷《生活质量问卷》',
    );

    fireEvent.click(screen.getByRole('switch', { name: '启用' }));
    fireEvent.click(screen.getByLabelText('微信公众号'));
    fireEvent.change(days, { target: { value: '' } });
    fireEvent.blur(days);
    const invite = screen.getByLabelText('问卷邀请模板');
    fireEvent.change(invite, { target: { value: '{patient}，请填《{form}》' } });
    expect(screen.getByLabelText('问卷邀请预览').textContent).toBe('预览：张*，请填《生活质量问卷》');

    fireEvent.click(screen.getByRole('button', { name: /保\s*存/ }));
    await waitFor(() =>
      expect(api.saveRules).toHaveBeenCalledWith(9, {
        ...DEFAULT_MESSAGE_RULES,
        enabled: true,
        channel: 'wechat',
        daysBefore: null,
        templates: { pro_invite: '{patient}，请填《{form}》' },
      }),
    );
    expect(await screen.findByText('保存成功')).toBeTruthy();
  });

  it('a template naming an unknown variable is refused before sending', async () => {
    api.rules.mockResolvedValue({ code: 200, msg: '', data: DEFAULT_MESSAGE_RULES });
    renderWithProviders(<MessageRulesPanel study={holder} />);
    fireEvent.change(await screen.findByLabelText('随访超窗提醒模板'), { target: { value: '{name}请回院' } });
    fireEvent.click(screen.getByRole('button', { name: /保\s*存/ }));
    expect(await screen.findByText('模板中有未知的变量')).toBeTruthy();
    expect(api.saveRules).not.toHaveBeenCalled();
  });

  it('without 患者提醒 the rules are shown read-only', async () => {
    api.rules.mockResolvedValue({ code: 200, msg: '', data: { ...DEFAULT_MESSAGE_RULES, enabled: true } });
    renderWithProviders(<MessageRulesPanel study={reader} />);
    const days = (await screen.findByLabelText('窗口前提醒天数')) as HTMLInputElement;
    expect(days.disabled).toBe(true);
    expect((screen.getByLabelText('问卷邀请模板') as HTMLTextAreaElement).disabled).toBe(true);
    expect((screen.getByRole('button', { name: /保\s*存/ }) as HTMLButtonElement).disabled).toBe(true);
  });
});
