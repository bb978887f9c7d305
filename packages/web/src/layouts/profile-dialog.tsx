import { useQuery } from '@tanstack/react-query';
import { Descriptions, Modal, Spin, Tabs } from 'antd';
import { SEX } from '@ecrf/core';
import { authApi } from '../api/auth.api';
import { API_TOKEN_TEXT } from '../locales/api-token.zh-CN';
import { PROFILE_TEXT } from '../locales/profile.zh-CN';
import { SEX_TEXT } from '../locales/sex.zh-CN';
import { SHELL_TEXT } from '../locales/shell.zh-CN';
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
  const sex = user?.sex === SEX.male ? SEX_TEXT.male : user?.sex === SEX.female ? SEX_TEXT.female : '';

  return (
    <Modal open={open} title={SHELL_TEXT.profile} onCancel={onClose} footer={null} width={760} destroyOnHidden>
      <Tabs
        items={[
          {
            key: 'basic',
            label: API_TOKEN_TEXT.basicTab,
            children:
              isLoading || !user ? (
                <Spin />
              ) : (
                <Descriptions column={1} bordered size="small" styles={{ label: { width: 120 } }}>
                  <Descriptions.Item label={PROFILE_TEXT.userName}>{user.userName}</Descriptions.Item>
                  <Descriptions.Item label={PROFILE_TEXT.name}>{user.name}</Descriptions.Item>
                  <Descriptions.Item label={PROFILE_TEXT.sex}>{sex}</Descriptions.Item>
                  <Descriptions.Item label={PROFILE_TEXT.mobile}>{user.mobile ?? ''}</Descriptions.Item>
                  <Descriptions.Item label={PROFILE_TEXT.email}>{user.email ?? ''}</Descriptions.Item>
                  <Descriptions.Item label={PROFILE_TEXT.dept}>{user.deptName ?? ''}</Descriptions.Item>
                  <Descriptions.Item label={PROFILE_TEXT.roles}>
                    {(data?.roleNames ?? data?.roles ?? []).join('、')}
                  </Descriptions.Item>
                  <Descriptions.Item label={PROFILE_TEXT.remark}>{user.remark ?? ''}</Descriptions.Item>
                </Descriptions>
              ),
          },
          { key: 'api-token', label: API_TOKEN_TEXT.tab, children: <ApiTokensPanel /> },
        ]}
      />
    </Modal>
  );
}
