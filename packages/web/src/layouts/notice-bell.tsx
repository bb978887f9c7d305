import { useQuery } from '@tanstack/react-query';
import { Badge, Button, Empty, List, Popover } from 'antd';
import { NotificationOutlined } from '@ant-design/icons';
import { baseApi } from '../api/base.api';
import { T } from '../locales/zh-CN';
import { formatDate } from '../utils/format-date';
import { queryKeys } from '../api/query-keys';

/** 通知公告 in the top bar: the newest notices, with a red dot while there are any. */
export function NoticeBell() {
  const notices = useQuery({
    queryKey: queryKeys.notices.all(),
    queryFn: () => baseApi.notices().then((res) => res.data),
    staleTime: 5 * 60 * 1000,
  });
  const list = notices.data?.list ?? [];
  const content = (
    <div className="notice-popover">
      {list.length === 0 ? (
        <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={T.shell.noNotices} />
      ) : (
        <List
          size="small"
          dataSource={list}
          renderItem={(notice) => (
            <List.Item key={notice.noticeId}>
              <List.Item.Meta title={notice.title} description={`${formatDate(notice.createTime)} ${notice.content}`} />
            </List.Item>
          )}
        />
      )}
    </div>
  );
  return (
    <Popover content={content} title={T.shell.notices} trigger="click" placement="bottomRight">
      <Badge dot={list.length > 0} offset={[-6, 6]}>
        <Button type="text" aria-label={T.shell.notices} icon={<NotificationOutlined aria-hidden />} />
      </Badge>
    </Popover>
  );
}
