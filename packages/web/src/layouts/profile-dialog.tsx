import { useQuery } from '@tanstack/react-query';
import { Descriptions, Modal, Spin, Tabs } from 'antd';
import { SEX } from '@ecrf/core';
import { authApi } from '../api/auth.api';
import { T } from '../locales/zh-CN';
import { queryKeys } from '../api/query-keys';
import { ApiTokensPanel } from './api-tokens-panel';

/** 个人信息: the signed-in user's own record from getInfo, and their REDCap API tokens. */
export function ProfileDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { data, isLoading } = useQuery({
    queryKey: queryKeys.account.info(),
    queryFn: () => authApi.getInfo().then((res) => res.data),
    enabled: open,
  });
  const user = data?.user;
  const sex = user?.sex === SEX.male ? T.sex.male : user?.sex === SEX.female ? T.sex.female : '';

  return (
    <Modal open={open} title={T.shell.profile} onCancel={onClose} footer={null} width={760} destroyOnHidden>
      <Tabs
        items={[
          {
            key: 'basic',
            label: T.apiToken.basicTab,
            children:
              isLoading || !user ? (
                <Spin />
              ) : (
                <Descriptions column={1} bordered size="small" styles={{ label: { width: 120 } }}>
                  <Descriptions.Item label={T.profile.userName}>{user.userName}</Descriptions.Item>
                  <Descriptions.Item label={T.profile.name}>{user.name}</Descriptions.Item>
                  <Descriptions.Item label={T.profile.sex}>{sex}</Descriptions.Item>
                  <Descriptions.Item label={T.profile.mobile}>{user.mobile ?? ''}</Descriptions.Item>
                  <Descriptions.Item label={T.profile.email}>{user.email ?? ''}</Descriptions.Item>
                  <Descriptions.Item label={T.profile.dept}>{user.deptName ?? ''}</Descriptions.Item>
                  <Descriptions.Item label={T.profile.roles}>
                    {(data?.roleNames ?? data?.roles ?? []).join('、')}
                  </Descriptions.Item>
                  <Descriptions.Item label={T.profile.remark}>{user.remark ?? ''}</Descriptions.Item>
                </Descriptions>
              ),
          },
          { key: 'api-token', label: T.apiToken.tab, children: <ApiTokensPanel /> },
        ]}
      />
    </Modal>
  );
}
