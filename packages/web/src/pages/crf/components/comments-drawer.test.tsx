import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import type { ItemComment } from '../../../api/comment.api';
import { renderWithProviders } from '../../../test/render';
import { CommentsSection } from './comments-drawer';

const api = vi.hoisted(() => ({ list: vi.fn(), add: vi.fn() }));
vi.mock('../../../api/comment.api', async (importOriginal) => ({
  ...(await importOriginal<object>()),
  commentApi: api,
}));

afterEach(() => {
  cleanup();
  vi.clearAllMocks();
});

const ok = <T,>(data: T, msg = '') => ({ code: 200, msg, data });

function comment(patch: Partial<ItemComment>): ItemComment {
  return {
    commentId: 1,
    studyId: 1,
    subjectRecordId: 2,
    crfDataRecordId: 41,
    crfId: 3,
    itemName: 'hr',
    content: '来源：门诊病历',
    userId: 5,
    userName: '李护士(13900000001)',
    createDate: '2026-03-02T01:02:03Z',
    ...patch,
  };
}

const section = (props: { canComment?: boolean; lockedText?: string } = {}) =>
  renderWithProviders(
    <CommentsSection
      studyId={1}
      crfDataRecordId={41}
      itemName="hr"
      canComment={props.canComment ?? true}
      lockedText={props.lockedText}
    />,
  );

describe('field comments (批注) of an item', () => {
  it('lists the item’s own comments with author and content, and adds one that then shows', async () => {
    let rows = [comment({}), comment({ commentId: 2, itemName: 'sbp', content: '另一题的批注' })];
    api.list.mockImplementation(() => Promise.resolve(ok(rows)));
    api.add.mockImplementation((body: { content: string }) => {
      const added = comment({ commentId: 3, content: body.content, userName: '王医生(13900000002)' });
      rows = [...rows, added];
      return Promise.resolve(ok(added, '批注已添加'));
    });
    section();
    expect(await screen.findByText('来源：门诊病历')).toBeTruthy();
    expect(screen.getByText('李护士(13900000001)')).toBeTruthy();
    expect(screen.queryByText('另一题的批注')).toBeNull();
    expect(api.list).toHaveBeenCalledWith(1, 41);

    fireEvent.click(screen.getByRole('button', { name: '添加批注' }));
    expect(await screen.findByText('请输入批注内容', { selector: '[role="alert"]' })).toBeTruthy();
    expect(api.add).not.toHaveBeenCalled();

    fireEvent.change(screen.getByLabelText('请输入批注内容'), { target: { value: '  请监查员核对  ' } });
    fireEvent.click(screen.getByRole('button', { name: '添加批注' }));
    await waitFor(() =>
      expect(api.add).toHaveBeenCalledWith({
        studyId: 1,
        crfDataRecordId: 41,
        itemName: 'hr',
        content: '请监查员核对',
      }),
    );
    expect(await screen.findByText('批注已添加')).toBeTruthy();
    expect(await screen.findByText('请监查员核对')).toBeTruthy();
    expect(screen.getByText('王医生(13900000002)')).toBeTruthy();
  });

  it('says 暂无批注 without comments; a lock disables the box with its words; no permission hides it', async () => {
    api.list.mockResolvedValue(ok([]));
    const lock = '表单已锁定（张监查 2026-03-02），如需修改请先解锁';
    section({ lockedText: lock });
    expect(await screen.findByText('暂无批注')).toBeTruthy();
    const button = screen.getByRole('button', { name: '添加批注' }) as HTMLButtonElement;
    expect(button.disabled).toBe(true);
    expect((screen.getByLabelText('请输入批注内容') as HTMLTextAreaElement).disabled).toBe(true);
    expect(screen.getByText(lock)).toBeTruthy();
    cleanup();

    section({ canComment: false });
    expect(await screen.findByText('暂无批注')).toBeTruthy();
    expect(screen.queryByRole('button', { name: '添加批注' })).toBeNull();
    expect(screen.queryByLabelText('请输入批注内容')).toBeNull();
  });
});
