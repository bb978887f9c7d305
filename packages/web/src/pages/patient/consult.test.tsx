import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { renderWithProviders } from '../../test/render';
import PatientConsultPage from './consult';

const api = vi.hoisted(() => ({
  asked: [] as { id: number; title: string; question: string }[],
  consults: vi.fn(async () =>
    api.asked.map((q) => ({ ...q, state: 0, answer: null, answeredAt: null, createdAt: '2026-01-02T03:04:05Z' })),
  ),
  ask: vi.fn(async (body: { title: string; question: string }) => {
    api.asked.push({ id: api.asked.length + 1, ...body });
    return { id: api.asked.length };
  }),
}));

vi.mock('../../api/patient.api', async (importOriginal) => ({
  ...(await importOriginal<object>()),
  patientApi: { consults: api.consults, ask: api.ask },
  patientToken: { get: () => 'patient-token', set: () => undefined, clear: () => undefined },
}));

afterEach(() => {
  cleanup();
  vi.clearAllMocks();
  api.asked = [];
});

describe('在线咨询 on the phone', () => {
  it('checks the question as the server does, asks it, and lists it as 待回复', async () => {
    renderWithProviders(
      <MemoryRouter>
        <PatientConsultPage />
      </MemoryRouter>,
    );
    await screen.findByText('您还没有提交过咨询');
    fireEvent.change(screen.getByLabelText('标题'), { target: { value: '术后多久可以开车' } });
    fireEvent.click(screen.getByRole('button', { name: /提交咨询/ }));
    expect((await screen.findByRole('alert')).textContent).toContain('请输入咨询内容');
    expect(api.ask).not.toHaveBeenCalled();

    fireEvent.change(screen.getByLabelText('问题内容'), { target: { value: '手术后一个月了，可以自己开车上班吗？' } });
    fireEvent.click(screen.getByRole('button', { name: /提交咨询/ }));
    await waitFor(() =>
      expect(api.ask).toHaveBeenCalledWith({
        title: '术后多久可以开车',
        question: '手术后一个月了，可以自己开车上班吗？',
      }),
    );
    await screen.findByText('已提交，请等待研究团队回复');
    const item = await screen.findByRole('listitem', { name: '术后多久可以开车' });
    expect(within(item).getByText('待回复')).toBeTruthy();
    expect((screen.getByLabelText('标题') as HTMLInputElement).value).toBe('');
  });
});
