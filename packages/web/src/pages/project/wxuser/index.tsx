import { useState } from 'react';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, Input, Modal, Popconfirm, Select, Space, Table, Tag, Typography, message } from 'antd';
import { buttonKey } from '@ecrf/core';
import { studyApi } from '../../../api/study.api';
import { useAppStore } from '../../../stores/app.store';
import { useSession } from '../../../stores/session.store';
import { formatDate } from '../../../utils/format-date';
import { QrImage } from '../../crf/components/qr-image';
import { canInStudy } from '../study-access';
import { messageUrl, wechatApi, type BindCode, type WxUserRow } from '../wechat/wechat.api';
import { WX } from '../wechat/texts';
import '../wechat/wechat.css';

const PAGE_SIZE = 10;

/**
 * 公众号用户 (/project/wxuser): the patients of a study with their binding to a messaging account. Staff with
 * 编辑患者 issue a one-time binding code (shown once, with the message link that carries it) or unbind.
 * The route has no study id: the study is picked here, the one last opened first.
 */
export default function WxUserPage() {
  const current = useAppStore((s) => s.studyId);
  const permissions = useSession((s) => s.permissions);
  const [studyId, setStudyId] = useState<number | null>(current ? Number(current) : null);
  const [bound, setBound] = useState<string>('');
  const [keyword, setKeyword] = useState('');
  const [search, setSearch] = useState('');
  const [pageNum, setPageNum] = useState(1);
  const [issued, setIssued] = useState<(BindCode & { identificationCode: string }) | null>(null);
  const client = useQueryClient();

  const studies = useQuery({ queryKey: ['wechat', 'studies'], queryFn: () => studyApi.allMine().then((r) => r.data) });
  const chosen = studyId ?? studies.data?.list[0]?.id ?? null;
  const study = useQuery({
    queryKey: ['study', 'detail', chosen],
    enabled: chosen !== null,
    queryFn: () => studyApi.get(chosen!).then((res) => res.data),
  });
  const mayEdit = canInStudy({ permissions, myRole: study.data?.myRole }, buttonKey('business.subject.edit'));
  const users = useQuery({
    queryKey: ['wechat', 'users', chosen, bound, search, pageNum],
    enabled: chosen !== null,
    placeholderData: keepPreviousData,
    queryFn: () =>
      wechatApi
        .users({
          studyId: chosen!,
          pageNum,
          pageSize: PAGE_SIZE,
          ...(bound && { bound }),
          ...(search && { keyword: search }),
        })
        .then((res) => res.data),
  });
  const refresh = () => client.invalidateQueries({ queryKey: ['wechat', 'users', chosen] });
  const issue = useMutation({
    mutationFn: (row: WxUserRow) =>
      wechatApi
        .bindCode(chosen!, row.subjectId)
        .then((res) => ({ ...res.data, identificationCode: row.identificationCode })),
    onSuccess: (data) => {
      setIssued(data);
      void refresh();
    },
  });
  const unbind = useMutation({
    mutationFn: (row: WxUserRow) => wechatApi.unbind(chosen!, row.subjectId),
    onSuccess: () => {
      void message.success(WX.unbound_ok);
      void refresh();
    },
  });

  return (
    <div className="page-card">
      <h2 className="page-title">{WX.wxuserTitle}</h2>
      <Space wrap style={{ marginBottom: 16 }}>
        <Select
          aria-label={WX.study}
          placeholder={WX.studyPlaceholder}
          style={{ width: 280 }}
          value={chosen ?? undefined}
          loading={studies.isLoading}
          options={(studies.data?.list ?? []).map((s) => ({ value: s.id, label: s.studyName }))}
          onChange={(value: number) => {
            setStudyId(value);
            setPageNum(1);
          }}
        />
        <Select
          aria-label={WX.bindState}
          style={{ width: 120 }}
          value={bound}
          options={[
            { value: '', label: WX.all },
            { value: 'true', label: WX.bound },
            { value: 'false', label: WX.unbound },
          ]}
          onChange={(value: string) => {
            setBound(value);
            setPageNum(1);
          }}
        />
        <Input
          aria-label={WX.keyword}
          placeholder={WX.keyword}
          style={{ width: 180 }}
          value={keyword}
          allowClear
          onChange={(e) => setKeyword(e.target.value)}
          onPressEnter={() => {
            setSearch(keyword.trim());
            setPageNum(1);
          }}
        />
        <Button
          type="primary"
          onClick={() => {
            setSearch(keyword.trim());
            setPageNum(1);
          }}
        >
          {WX.search}
        </Button>
      </Space>
      <Table<WxUserRow>
        rowKey="subjectId"
        loading={users.isFetching}
        dataSource={users.data?.list ?? []}
        pagination={{
          current: pageNum,
          pageSize: PAGE_SIZE,
          total: users.data?.total ?? 0,
          onChange: setPageNum,
          showSizeChanger: false,
        }}
        scroll={{ x: 900 }}
        columns={[
          { title: WX.code, dataIndex: 'identificationCode', width: 120 },
          { title: WX.name, dataIndex: 'subjectName', width: 100 },
          { title: WX.diseaseName, dataIndex: 'diseaseCode', width: 90 },
          {
            title: WX.bindState,
            dataIndex: 'bound',
            width: 100,
            render: (value: boolean) => (value ? <Tag color="green">{WX.bound}</Tag> : <Tag>{WX.unbound}</Tag>),
          },
          { title: WX.openId, dataIndex: 'openId', width: 130 },
          {
            title: WX.boundAt,
            dataIndex: 'boundAt',
            width: 170,
            render: (value: string | null) => (value ? formatDate(value) : ''),
          },
          {
            title: WX.codeLive,
            dataIndex: 'codeExpiresAt',
            width: 170,
            render: (value: string | null) => (value ? formatDate(value) : ''),
          },
          {
            title: WX.actions,
            key: 'actions',
            width: 200,
            fixed: 'right',
            render: (_: unknown, row) => (
              <Space size={0}>
                <Button type="link" disabled={!mayEdit} loading={issue.isPending} onClick={() => issue.mutate(row)}>
                  {WX.issue}
                </Button>
                {row.bound && (
                  <Popconfirm title={WX.unbindConfirm} onConfirm={() => unbind.mutate(row)} disabled={!mayEdit}>
                    <Button type="link" danger disabled={!mayEdit}>
                      {WX.unbind}
                    </Button>
                  </Popconfirm>
                )}
              </Space>
            ),
          },
        ]}
      />
      <Modal
        open={issued !== null}
        title={`${WX.codeTitle}：${issued?.identificationCode ?? ''}`}
        onCancel={() => setIssued(null)}
        footer={<Button onClick={() => setIssued(null)}>{WX.close}</Button>}
      >
        {issued && chosen !== null && (
          <div>
            <div className="wechat-code" data-testid="bind-code">
              {issued.code}
            </div>
            <Typography.Paragraph type="secondary">{WX.codeHint}</Typography.Paragraph>
            <Typography.Paragraph>
              {WX.codeExpires}：{formatDate(issued.expiresAt)}
            </Typography.Paragraph>
            <Typography.Paragraph copyable className="wechat-url">
              {messageUrl(chosen, issued.code)}
            </Typography.Paragraph>
            <div style={{ textAlign: 'center' }}>
              <QrImage text={messageUrl(chosen, issued.code)} size={160} margin={2} alt={WX.messageLink} />
            </div>
          </div>
        )}
      </Modal>
    </div>
  );
}
