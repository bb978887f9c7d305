import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { App, Badge, Button, Empty, List, Popover } from 'antd';
import { NotificationOutlined } from '@ant-design/icons';
import { baseApi } from '../api/base.api';
import { MESSAGE_SECONDS } from '../api/request';
import { SHELL_TEXT } from '../locales/shell.zh-CN';
import { useRealtimeEvent } from '../realtime/realtime-events';
import { formatDate } from '../utils/format-date';
import { queryKeys } from '../api/query-keys';

/** Shown when a notice is published for the signed-in user (the push names it by id only). */
export const NEW_NOTICE_TITLE = '新公告';

/**
 * 通知公告 in the top bar: the newest notices meant for the user, with a red dot while one is unread. Opening the
 * popover marks the shown ones read. A notice published or changed by an administrator is pushed
 * (personsignalhub `sys.notice`): the list reads again, and a new one is announced with its title.
 */
export function NoticeBell() {
  const client = useQueryClient();
  const { notification } = App.useApp();
  const [open, setOpen] = useState(false);
  const notices = useQuery({
    queryKey: queryKeys.notices.all(),
    queryFn: () => baseApi.notices().then((res) => res.data),
    staleTime: 5 * 60 * 1000,
  });
  const list = notices.data?.list ?? [];
  const unread = list.filter((n) => !n.read);

  useRealtimeEvent('sys.notice', (push) => {
    void client.invalidateQueries({ queryKey: queryKeys.notices.all() }).then(() => {
      if (push.change !== 'published') return;
      const fresh = client.getQueryData<{ list: { noticeId: number; title: string }[] }>(queryKeys.notices.all());
      const notice = fresh?.list.find((n) => n.noticeId === push.noticeId);
      if (!notice) return;
      notification.info({
        key: `sys-notice-${push.noticeId}`,
        title: NEW_NOTICE_TITLE,
        description: notice.title,
        duration: MESSAGE_SECONDS,
        placement: 'bottomRight',
      });
    });
  });

  const onOpenChange = (next: boolean) => {
    setOpen(next);
    if (next && unread.length > 0) {
      void baseApi
        .markNoticesRead(unread.map((n) => n.noticeId))
        .then(() => client.invalidateQueries({ queryKey: queryKeys.notices.all() }));
    }
  };

  const content = (
    <div className="notice-popover">
      {list.length === 0 ? (
        <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={SHELL_TEXT.noNotices} />
      ) : (
        <List
          size="small"
          dataSource={list}
          renderItem={(notice) => (
            <List.Item key={notice.noticeId} className={notice.read ? undefined : 'notice-unread'}>
              <List.Item.Meta
                title={
                  <span>
                    {!notice.read && <Badge status="error" />} {notice.title}
                  </span>
                }
                description={`${formatDate(notice.createTime)} ${notice.content}`}
              />
            </List.Item>
          )}
        />
      )}
    </div>
  );
  return (
    <Popover
      content={content}
      title={SHELL_TEXT.notices}
      trigger="click"
      placement="bottomRight"
      open={open}
      onOpenChange={onOpenChange}
    >
      <Badge dot={unread.length > 0} offset={[-6, 6]}>
        <Button
          type="text"
          className="top-bar-notices"
          aria-label={SHELL_TEXT.notices}
          icon={<NotificationOutlined aria-hidden />}
        />
      </Badge>
    </Popover>
  );
}
