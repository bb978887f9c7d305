import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { App, Button, Modal, Tag, Typography } from 'antd';
import { buttonKey, type WxUserQuery } from '@ecrf/core';
import { queryKeys } from '../../../api/query-keys';
import { messageUrl, wechatApi, type BindCode, type WxUserRow } from '../../../api/wechat.api';
import { actionsColumn, type PageColumn } from '../../../components/table-page';
import { WECHAT_TEXT } from '../../../locales/wechat.zh-CN';
import { formatDate } from '../../../utils/format-date';
import { QrImage } from '../../crf/components/qr-image';
import { PickedStudyTable } from '../components/picked-study-table';
import { StudyPicker, usePickedStudy } from '../picked-study';
import '../wechat/wechat.css';

const BOUND_OPTIONS = [
  { value: '', label: WECHAT_TEXT.all },
  { value: 'true', label: WECHAT_TEXT.bound },
  { value: 'false', label: WECHAT_TEXT.unbound },
];

type Filters = Pick<WxUserQuery, 'bound' | 'keyword'>;

/**
 * 公众号用户 (/project/wxuser): the patients of a study with their binding to a messaging account. Staff with
 * 编辑患者 issue a one-time binding code (shown once, with the message link that carries it) or unbind.
 * The route has no study id: the study is picked here, the one last opened first.
 */
export default function WxUserPage() {
  const study = usePickedStudy();
  const chosen = study.studyId;
  const [issued, setIssued] = useState<(BindCode & { identificationCode: string }) | null>(null);
  const { message } = App.useApp();
  const client = useQueryClient();

  const mayEdit = study.can(buttonKey('business.subject.edit'));
  const refresh = () => client.invalidateQueries({ queryKey: queryKeys.wechat.users(chosen!) });
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
      void message.success(WECHAT_TEXT.unbound_ok);
      void refresh();
    },
  });

  const columns: PageColumn<WxUserRow>[] = [
    {
      title: WECHAT_TEXT.code,
      dataIndex: 'identificationCode',
      width: 120,
      search: { name: 'keyword', label: WECHAT_TEXT.keyword },
    },
    { title: WECHAT_TEXT.name, dataIndex: 'subjectName', width: 100 },
    { title: WECHAT_TEXT.diseaseName, dataIndex: 'diseaseCode', width: 90 },
    {
      title: WECHAT_TEXT.bindState,
      dataIndex: 'bound',
      kind: 'status',
      width: 100,
      search: { options: BOUND_OPTIONS, width: 120 },
      // The filters keep the order they had: the binding, then the code.
      searchOrder: -1,
      render: (value: boolean) =>
        value ? <Tag color="green">{WECHAT_TEXT.bound}</Tag> : <Tag>{WECHAT_TEXT.unbound}</Tag>,
    },
    { title: WECHAT_TEXT.openId, dataIndex: 'openId', width: 130 },
    { title: WECHAT_TEXT.boundAt, dataIndex: 'boundAt', kind: 'datetime' },
    { title: WECHAT_TEXT.codeLive, dataIndex: 'codeExpiresAt', kind: 'datetime' },
    actionsColumn<WxUserRow>([
      { key: 'issue', label: WECHAT_TEXT.issue, allowed: mayEdit, onClick: (row) => issue.mutate(row) },
      {
        key: 'unbind',
        label: WECHAT_TEXT.unbind,
        allowed: mayEdit,
        danger: true,
        hidden: (row) => !row.bound,
        confirm: () => ({ title: WECHAT_TEXT.unbindConfirm }),
        onClick: (row) => unbind.mutateAsync(row),
      },
    ]),
  ];

  return (
    <div className="page-card">
      <h2 className="page-title">{WECHAT_TEXT.wxuserTitle}</h2>
      <StudyPicker study={study} label={WECHAT_TEXT.study} placeholder={WECHAT_TEXT.studyPlaceholder} />
      <PickedStudyTable<WxUserRow, Filters>
        studyId={chosen}
        name="wxuser-filter"
        rowKey="subjectId"
        columns={columns}
        initialValues={{ bound: '' }}
        queryKey={(id) => queryKeys.wechat.users(id)}
        fetchPage={(query) => wechatApi.users(query).then((res) => res.data)}
      />
      <Modal
        open={issued !== null}
        title={`${WECHAT_TEXT.codeTitle}：${issued?.identificationCode ?? ''}`}
        onCancel={() => setIssued(null)}
        footer={<Button onClick={() => setIssued(null)}>{WECHAT_TEXT.close}</Button>}
      >
        {issued && chosen !== null && (
          <div>
            <div className="wechat-code" data-testid="bind-code">
              {issued.code}
            </div>
            <Typography.Paragraph type="secondary">{WECHAT_TEXT.codeHint}</Typography.Paragraph>
            <Typography.Paragraph>
              {WECHAT_TEXT.codeExpires}：{formatDate(issued.expiresAt)}
            </Typography.Paragraph>
            <Typography.Paragraph copyable className="wechat-url">
              {messageUrl(chosen, issued.code)}
            </Typography.Paragraph>
            <div style={{ textAlign: 'center' }}>
              <QrImage text={messageUrl(chosen, issued.code)} size={160} margin={2} alt={WECHAT_TEXT.messageLink} />
            </div>
          </div>
        )}
      </Modal>
    </div>
  );
}
