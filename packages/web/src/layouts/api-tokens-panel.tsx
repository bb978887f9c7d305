import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Popconfirm, Select, Space, Table, Tag, Typography } from 'antd';
import { apiTokenApi, type ApiTokenRow, type CreatedApiToken } from '../api/api-token.api';
import { queryKeys } from '../api/query-keys';
import { API_TOKEN_TEXT } from '../locales/api-token.zh-CN';
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
    queryKey: queryKeys.account.apiTokenStudies(),
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
        {API_TOKEN_TEXT.intro}
      </Typography.Paragraph>
      <Space wrap>
        <Select
          aria-label={API_TOKEN_TEXT.study}
          placeholder={API_TOKEN_TEXT.chooseStudy}
          style={{ width: 280 }}
          value={studyId}
          onChange={setStudyId}
          loading={studies.isLoading}
          options={(studies.data ?? []).map((s) => ({ value: s.studyId, label: s.studyName }))}
          notFoundContent={API_TOKEN_TEXT.noStudy}
        />
        <Button
          type="primary"
          disabled={studyId === undefined}
          loading={create.isPending}
          onClick={() => studyId !== undefined && create.mutate(studyId)}
        >
          {API_TOKEN_TEXT.create}
        </Button>
      </Space>
      {created && (
        <Alert
          type="warning"
          showIcon
          message={API_TOKEN_TEXT.shownOnce}
          description={
            <Typography.Text
              code
              copyable={{ text: created.token, tooltips: [API_TOKEN_TEXT.copy, API_TOKEN_TEXT.copied] }}
            >
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
        locale={{ emptyText: API_TOKEN_TEXT.empty }}
        columns={[
          { title: API_TOKEN_TEXT.study, dataIndex: 'studyName' },
          { title: API_TOKEN_TEXT.createTime, dataIndex: 'createTime', render: (v: string) => formatDate(v) },
          {
            title: API_TOKEN_TEXT.lastUsedTime,
            dataIndex: 'lastUsedTime',
            render: (v: string | null) => (v ? formatDate(v) : API_TOKEN_TEXT.neverUsed),
          },
          {
            title: API_TOKEN_TEXT.state,
            dataIndex: 'revokeTime',
            render: (v: string | null) =>
              v ? <Tag>{API_TOKEN_TEXT.revoked}</Tag> : <Tag color="green">{API_TOKEN_TEXT.active}</Tag>,
          },
          {
            title: API_TOKEN_TEXT.actions,
            key: 'actions',
            render: (_, row) =>
              row.revokeTime ? null : (
                <Popconfirm
                  title={API_TOKEN_TEXT.revokeConfirm}
                  okText={API_TOKEN_TEXT.revoke}
                  cancelText={API_TOKEN_TEXT.cancel}
                  onConfirm={() => revoke.mutateAsync(row.id)}
                >
                  <Button type="link" danger size="small">
                    {API_TOKEN_TEXT.revoke}
                  </Button>
                </Popconfirm>
              ),
          },
        ]}
      />
    </Space>
  );
}
