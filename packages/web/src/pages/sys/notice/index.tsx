import { useState } from 'react';
import { PlusOutlined } from '@ant-design/icons';
import { noticeAdminApi, type NoticeAdminRow } from '../../../api/notice.api';
import { queryKeys } from '../../../api/query-keys';
import { AuthButton } from '../../../components/permission';
import { actionsColumn, TablePage, useListMutation, type PageColumn } from '../../../components/table-page';
import { NOTICE_TEXT } from '../../../locales/notice.zh-CN';
import { NoticeDialog } from './components/notice-dialog';

interface Filters {
  title?: string;
}

/** The prefix of the list and of the bell: the administrator may be a reader too, so the bell reads again. */
const INVALIDATE = [queryKeys.notices.all()];

const targetText = (row: NoticeAdminRow) =>
  row.targetType === 'all'
    ? NOTICE_TEXT.targets.all
    : `${NOTICE_TEXT.targets[row.targetType]}：${row.targetName ?? ''}`;

/**
 * 通知公告 (/sys/notice): administrators publish notices for all users, the users of one system role or the staff
 * of one study; a published notice reaches its signed-in readers at once (the top bar's bell).
 */
export default function NoticePage() {
  const [editing, setEditing] = useState<NoticeAdminRow | 'new' | null>(null);
  const remove = useListMutation({
    mutationFn: (row: NoticeAdminRow) => noticeAdminApi.remove(row.noticeId),
    invalidate: INVALIDATE,
  });

  const columns: PageColumn<NoticeAdminRow>[] = [
    {
      title: NOTICE_TEXT.columnTitle,
      dataIndex: 'title',
      width: 220,
      search: { label: NOTICE_TEXT.searchTitle, width: 220 },
    },
    { title: NOTICE_TEXT.content, dataIndex: 'content', minWidth: 240 },
    { title: NOTICE_TEXT.target, key: 'target', width: 200, render: (_: unknown, row) => targetText(row) },
    { title: NOTICE_TEXT.readCount, dataIndex: 'readCount', kind: 'number', width: 100 },
    { title: NOTICE_TEXT.createTime, dataIndex: 'createTime', kind: 'datetime' },
    actionsColumn<NoticeAdminRow>([
      { key: 'edit', label: NOTICE_TEXT.edit, code: 'sys:notice:edit', onClick: (row) => setEditing(row) },
      {
        key: 'remove',
        label: NOTICE_TEXT.remove,
        code: 'sys:notice:remove',
        danger: true,
        confirm: () => ({ title: NOTICE_TEXT.removeConfirm }),
        onClick: (row) => remove.mutateAsync(row),
      },
    ]),
  ];

  return (
    <div className="page-card">
      <h2 className="page-title">{NOTICE_TEXT.title}</h2>
      <TablePage<NoticeAdminRow, Filters>
        name="notice-filter"
        rowKey="noticeId"
        columns={columns}
        queryKey={queryKeys.notices.manage()}
        fetchPage={(query) => noticeAdminApi.list(query).then((res) => res.data)}
        toolbar={
          <AuthButton code="sys:notice:add" icon={<PlusOutlined />} onClick={() => setEditing('new')}>
            {NOTICE_TEXT.add}
          </AuthButton>
        }
      />
      {editing && (
        <NoticeDialog
          row={editing === 'new' ? null : editing}
          invalidate={INVALIDATE}
          onClose={() => setEditing(null)}
        />
      )}
    </div>
  );
}
