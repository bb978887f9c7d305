import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { SaveActions } from './save-actions';

afterEach(cleanup);

const base = {
  dirty: false,
  saving: false as const,
  retrying: false,
  savedAt: null,
  recordState: null,
};

describe('save actions under a lock', () => {
  it('a lock shows 保存 and 提交 disabled with the lock’s words, and a click saves nothing', async () => {
    const onSave = vi.fn();
    const text = '该病例已锁定（系统管理员 2026-12-01），如需修改请先解锁';
    render(<SaveActions {...base} canSave canSubmit onSave={onSave} lockedText={text} />);
    const save = screen.getByRole('button', { name: /保\s*存/ });
    const submit = screen.getByRole('button', { name: /提\s*交/ });
    expect(save).toHaveProperty('disabled', true);
    expect(submit).toHaveProperty('disabled', true);
    fireEvent.click(save);
    fireEvent.click(submit);
    expect(onSave).not.toHaveBeenCalled();
    fireEvent.mouseEnter(save.parentElement!);
    expect(await screen.findByText(text)).toBeTruthy();
  });

  it('without a lock the buttons save', () => {
    const onSave = vi.fn();
    render(<SaveActions {...base} canSave canSubmit onSave={onSave} />);
    fireEvent.click(screen.getByRole('button', { name: /提\s*交/ }));
    expect(onSave).toHaveBeenCalledWith(true);
  });
});
