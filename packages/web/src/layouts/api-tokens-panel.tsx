import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Popconfirm, Select, Space, Table, Tag, Typography } from 'antd';
import { apiTokenApi, type ApiTokenRow, type CreatedApiToken } from '../api/api-token.api';
import { queryKeys } from '../api/query-keys';
import { T } from '../locales/zh-CN';
import { formatDate } from '../utils/format-date';

/**
 * The caller's REDCap API tokens (个人信息 → API令牌): one per study they may read data in, shown once when
 * created (the server keeps only its hash), listed with when it was made and last used, and revoked.
 */
export function ApiTokensPanel() {
  const client = useQueryClient();
  const [studyId, setStudyId] = useState<number | undefined>(undefined);
  const [created, setCreated] = useState<CreatedApiToken | null>(null);
  const tokens = useQuery({
    queryKey: queryKeys.account.apiTokens(),
    queryFn: () => apiTokenApi.list().then((res) => res.data),
  });
  const studies = useQuery({
    queryKey: [...queryKeys.account.apiTokens(), 'studies'],
    queryFn: () => apiTokenApi.studies().then((res) => res.data),
  });
  const refresh = () => client.invalidateQueries({ queryKey: queryKeys.account.apiTokens() });
  const create = useMutation({
    mutationFn: (id: number) => apiTokenApi.create(id).then((res) => res.data),
    onSuccess: (data) => {
      setCreated(data);
      setStudyId(undefined);
      void refresh();
    },
  });
  const revoke = useMutation({
    mutationFn: (id: number) => apiTokenApi.revoke(id),
    onSuccess: (_, id) => {
      if (created?.id === id) setCreated(null);
      void refresh();
    },
  });

  return (
    <Space direction="vertical" size="middle" style={{ width: '100%' }}>
      <Typography.Paragraph type="secondary" style={{ marginBottom: 0 }}>
        {T.apiToken.intro}
      </Typography.Paragraph>
      <Space wrap>
        <Select
          aria-label={T.apiToken.study}
          placeholder={T.apiToken.chooseStudy}
          style={{ width: 280 }}
          value={studyId}
          onChange={setStudyId}
          loading={studies.isLoading}
          options={(studies.data ?? []).map((s) => ({ value: s.studyId, label: s.studyName }))}
          notFoundContent={T.apiToken.noStudy}
        />
        <Button
          type="primary"
          disabled={studyId === undefined}
          loading={create.isPending}
          onClick={() => studyId !== undefined && create.mutate(studyId)}
        >
          {T.apiToken.create}
        </Button>
      </Space>
      {created && (
        <Alert
          type="warning"
          showIcon
          message={T.apiToken.shownOnce}
          description={
            <Typography.Text code copyable={{ text: created.token, tooltips: [T.apiToken.copy, T.apiToken.copied] }}>
              <span data-testid="new-api-token">{created.token}</span>
            </Typography.Text>
          }
          closable
          onClose={() => setCreated(null)}
        />
      )}
      <Table<ApiTokenRow>
        rowKey="id"
        size="small"
        pagination={false}
        loading={tokens.isLoading}
        dataSource={tokens.data ?? []}
        locale={{ emptyText: T.apiToken.empty }}
        columns={[
          { title: T.apiToken.study, dataIndex: 'studyName' },
          { title: T.apiToken.createTime, dataIndex: 'createTime', render: (v: string) => formatDate(v) },
          {
            title: T.apiToken.lastUsedTime,
            dataIndex: 'lastUsedTime',
            render: (v: string | null) => (v ? formatDate(v) : T.apiToken.neverUsed),
          },
          {
            title: T.apiToken.state,
            dataIndex: 'revokeTime',
            render: (v: string | null) =>
              v ? <Tag>{T.apiToken.revoked}</Tag> : <Tag color="green">{T.apiToken.active}</Tag>,
          },
          {
            title: T.apiToken.actions,
            key: 'actions',
            render: (_, row) =>
              row.revokeTime ? null : (
                <Popconfirm
                  title={T.apiToken.revokeConfirm}
                  okText={T.apiToken.revoke}
                  cancelText={T.apiToken.cancel}
                  onConfirm={() => revoke.mutateAsync(row.id)}
                >
                  <Button type="link" danger size="small">
                    {T.apiToken.revoke}
                  </Button>
                </Popconfirm>
              ),
          },
        ]}
      />
    </Space>
  );
}
