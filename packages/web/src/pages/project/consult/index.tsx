import { useState } from 'react';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Descriptions, Form, Input, Modal, Popconfirm, Select, Space, Tag, message } from 'antd';
import {
  buttonKey,
  CONSULT_STATES,
  CONSULT_TEXT_MAX,
  CONSULT_TITLE_MAX,
  type ConsultState,
  type ConsultView,
} from '@ecrf/core';
import { studyApi } from '../../../api/study.api';
import { PagedTable } from '../../../components/paged-table';
import { subjectRecordApi } from '../../../api/subject.api';
import { useRealtimeEvent } from '../../../realtime/realtime-events';
import { useAppStore } from '../../../stores/app.store';
import { useSession } from '../../../stores/session.store';
import { formatDate } from '../../../utils/format-date';
import { canInStudy } from '../study-access';
import { consultApi } from './consult.api';
import { CONSULT } from './texts';

const STATE_COLORS: Record<ConsultState, string> = { 0: 'orange', 1: 'green', 2: 'default' };

/**
 * 在线咨询 (/project/consult): the questions patients asked about a study, waiting ones first. 查看咨询 reads
 * them (a question is the patient's health information); 回复咨询, which includes it, answers, closes and enters a
 * question on a patient's behalf. The route has no study id: the study
 * is picked here, the one last opened first. The list reads again when a question is asked, answered or closed
 * elsewhere (personsignalhub `consult`).
 */
export default function ConsultPage() {
  const current = useAppStore((s) => s.studyId);
  const permissions = useSession((s) => s.permissions);
  const [studyId, setStudyId] = useState<number | null>(current ? Number(current) : null);
  const [state, setState] = useState<ConsultState | ''>('');
  const [keyword, setKeyword] = useState('');
  const [search, setSearch] = useState('');
  const [open, setOpen] = useState<{ mode: 'view' | 'reply'; row: ConsultView } | null>(null);
  const [adding, setAdding] = useState(false);
  const client = useQueryClient();

  const studies = useQuery({ queryKey: ['consult', 'studies'], queryFn: () => studyApi.allMine().then((r) => r.data) });
  const chosen = studyId ?? studies.data?.list[0]?.id ?? null;
  const study = useQuery({
    queryKey: ['study', 'detail', chosen],
    enabled: chosen !== null,
    queryFn: () => studyApi.get(chosen!).then((res) => res.data),
  });
  const mayView = canInStudy({ permissions, myRole: study.data?.myRole }, buttonKey('business.consult.view'));
  const mayReply = canInStudy({ permissions, myRole: study.data?.myRole }, buttonKey('business.consult.reply'));
  const refresh = () => client.invalidateQueries({ queryKey: ['consult', 'list', chosen] });
  useRealtimeEvent('consult', (push) => {
    if (push.studyId === chosen) void refresh();
  });

  const close = useMutation({
    mutationFn: (row: ConsultView) => consultApi.close(chosen!, row.id),
    onSuccess: () => {
      void message.success(CONSULT.closed);
      void refresh();
    },
  });

  return (
    <div className="page-card">
      <h2 className="page-title">{CONSULT.title}</h2>
      <Space wrap style={{ marginBottom: 16 }}>
        <Select
          aria-label={CONSULT.study}
          placeholder={CONSULT.studyPlaceholder}
          style={{ width: 280 }}
          value={chosen ?? undefined}
          loading={studies.isLoading}
          options={(studies.data?.list ?? []).map((s) => ({ value: s.id, label: s.studyName }))}
          onChange={(value: number) => setStudyId(value)}
        />
        <Select
          aria-label={CONSULT.state}
          style={{ width: 120 }}
          value={state}
          options={[{ value: '', label: CONSULT.all }, ...CONSULT_STATES.map(([value, label]) => ({ value, label }))]}
          onChange={(value: ConsultState | '') => setState(value)}
        />
        <Input
          aria-label={CONSULT.keyword}
          placeholder={CONSULT.keyword}
          style={{ width: 200 }}
          value={keyword}
          allowClear
          onChange={(e) => setKeyword(e.target.value)}
          onPressEnter={() => setSearch(keyword.trim())}
        />
        <Button type="primary" onClick={() => setSearch(keyword.trim())}>
          {CONSULT.search}
        </Button>
        <Button disabled={!mayReply || chosen === null} onClick={() => setAdding(true)}>
          {CONSULT.add}
        </Button>
      </Space>
      {chosen !== null && study.isSuccess && !mayView && <Alert type="info" showIcon title={CONSULT.noView} />}
      {chosen !== null && mayView && (
        <PagedTable<ConsultView>
          rowKey="id"
          queryKey={['consult', 'list', chosen]}
          filters={{ chosen, state, search }}
          fetchPage={(paging) =>
            consultApi
              .list({
                studyId: chosen,
                ...paging,
                state: state === '' ? undefined : state,
                keyword: search || undefined,
              })
              .then((res) => res.data)
          }
          scroll={{ x: 1000 }}
          columns={[
            { title: CONSULT.code, dataIndex: 'identificationCode', width: 120 },
            { title: CONSULT.name, dataIndex: 'subjectName', width: 100 },
            { title: CONSULT.consultTitle, dataIndex: 'title', width: 240, ellipsis: true },
            {
              title: CONSULT.state,
              dataIndex: 'state',
              width: 90,
              render: (value: ConsultState, row) => <Tag color={STATE_COLORS[value]}>{row.stateName}</Tag>,
            },
            {
              title: CONSULT.source,
              dataIndex: 'source',
              width: 120,
              render: (value: ConsultView['source']) => (value === 'patient' ? CONSULT.fromPatient : CONSULT.fromStaff),
            },
            {
              title: CONSULT.createTime,
              dataIndex: 'createTime',
              width: 170,
              render: (value: string) => formatDate(value),
            },
            {
              title: CONSULT.actions,
              key: 'actions',
              width: 200,
              fixed: 'right',
              render: (_: unknown, row) => (
                <Space size={0}>
                  <Button type="link" onClick={() => setOpen({ mode: 'view', row })}>
                    {CONSULT.view}
                  </Button>
                  {row.state !== 2 && (
                    <Button type="link" disabled={!mayReply} onClick={() => setOpen({ mode: 'reply', row })}>
                      {CONSULT.reply}
                    </Button>
                  )}
                  {row.state !== 2 && (
                    <Popconfirm title={CONSULT.closeConfirm} onConfirm={() => close.mutate(row)} disabled={!mayReply}>
                      <Button type="link" danger disabled={!mayReply}>
                        {CONSULT.close}
                      </Button>
                    </Popconfirm>
                  )}
                </Space>
              ),
            },
          ]}
        />
      )}
      {open && chosen !== null && (
        <ConsultDialog
          studyId={chosen}
          mode={open.mode}
          row={open.row}
          onClose={() => setOpen(null)}
          onDone={() => {
            setOpen(null);
            void refresh();
          }}
        />
      )}
      {adding && chosen !== null && (
        <AddDialog
          studyId={chosen}
          onClose={() => setAdding(false)}
          onDone={() => {
            setAdding(false);
            void refresh();
          }}
        />
      )}
    </div>
  );
}

function ConsultDialog(props: {
  studyId: number;
  mode: 'view' | 'reply';
  row: ConsultView;
  onClose: () => void;
  onDone: () => void;
}) {
  const { row } = props;
  const [form] = Form.useForm<{ answer: string }>();
  const answer = useMutation({
    mutationFn: (text: string) => consultApi.answer(props.studyId, row.id, text),
    onSuccess: () => {
      void message.success(CONSULT.replied);
      props.onDone();
    },
  });
  const replying = props.mode === 'reply';
  return (
    <Modal
      open
      width={640}
      title={replying ? CONSULT.replyTitle : CONSULT.detailTitle}
      onCancel={props.onClose}
      footer={
        replying ? (
          <Space>
            <Button onClick={props.onClose}>{CONSULT.cancel}</Button>
            <Button
              type="primary"
              loading={answer.isPending}
              onClick={() => void form.validateFields().then((v) => answer.mutate(v.answer.trim()))}
            >
              {CONSULT.confirm}
            </Button>
          </Space>
        ) : (
          <Button onClick={props.onClose}>{CONSULT.cancel}</Button>
        )
      }
    >
      <Descriptions column={2} size="small" bordered>
        <Descriptions.Item label={CONSULT.code}>{row.identificationCode}</Descriptions.Item>
        <Descriptions.Item label={CONSULT.name}>{row.subjectName}</Descriptions.Item>
        <Descriptions.Item label={CONSULT.consultTitle} span={2}>
          {row.title}
        </Descriptions.Item>
        <Descriptions.Item label={CONSULT.question} span={2}>
          <div style={{ whiteSpace: 'pre-wrap' }}>{row.question}</div>
        </Descriptions.Item>
        <Descriptions.Item label={CONSULT.state}>{row.stateName}</Descriptions.Item>
        <Descriptions.Item label={CONSULT.createTime}>{formatDate(row.createTime)}</Descriptions.Item>
        {!replying && (
          <>
            <Descriptions.Item label={CONSULT.answer} span={2}>
              <div style={{ whiteSpace: 'pre-wrap' }}>{row.answer ?? CONSULT.noAnswer}</div>
            </Descriptions.Item>
            <Descriptions.Item label={CONSULT.answeredBy}>{row.answeredByName}</Descriptions.Item>
            <Descriptions.Item label={CONSULT.answeredTime}>
              {row.answeredTime ? formatDate(row.answeredTime) : ''}
            </Descriptions.Item>
          </>
        )}
      </Descriptions>
      {replying && (
        <Form form={form} layout="vertical" style={{ marginTop: 16 }} initialValues={{ answer: row.answer ?? '' }}>
          <Form.Item
            name="answer"
            label={CONSULT.answer}
            rules={[{ required: true, whitespace: true, message: CONSULT.answerRequired }]}
          >
            <Input.TextArea rows={5} maxLength={CONSULT_TEXT_MAX} showCount placeholder={CONSULT.answerPlaceholder} />
          </Form.Item>
        </Form>
      )}
    </Modal>
  );
}

function AddDialog(props: { studyId: number; onClose: () => void; onDone: () => void }) {
  const [form] = Form.useForm<{ subjectId: number; title: string; question: string }>();
  const [code, setCode] = useState('');
  const patients = useQuery({
    queryKey: ['consult', 'patients', props.studyId, code],
    placeholderData: keepPreviousData,
    queryFn: () =>
      subjectRecordApi
        .list({ studyId: props.studyId, pageNum: 1, pageSize: 20, ...(code && { identificationCode: code }) })
        .then((res) => res.data.list),
  });
  const add = useMutation({
    mutationFn: (v: { subjectId: number; title: string; question: string }) =>
      consultApi.add({ studyId: props.studyId, ...v }),
    onSuccess: () => {
      void message.success(CONSULT.added);
      props.onDone();
    },
  });
  return (
    <Modal
      open
      title={CONSULT.addTitle}
      onCancel={props.onClose}
      okText={CONSULT.confirm}
      cancelText={CONSULT.cancel}
      confirmLoading={add.isPending}
      onOk={() => void form.validateFields().then((v) => add.mutate(v))}
    >
      <Form form={form} layout="vertical">
        <Form.Item
          name="subjectId"
          label={CONSULT.subject}
          rules={[{ required: true, message: CONSULT.subjectRequired }]}
        >
          <Select
            showSearch
            filterOption={false}
            placeholder={CONSULT.subjectPlaceholder}
            onSearch={(text) => setCode(text.trim())}
            loading={patients.isFetching}
            options={(patients.data ?? []).map((p) => ({
              value: p.id,
              label: `${p.identificationCode} ${p.subjectName}`,
            }))}
          />
        </Form.Item>
        <Form.Item
          name="title"
          label={CONSULT.consultTitle}
          rules={[{ required: true, whitespace: true, message: CONSULT.titleRequired }]}
        >
          <Input maxLength={CONSULT_TITLE_MAX} />
        </Form.Item>
        <Form.Item
          name="question"
          label={CONSULT.question}
          rules={[{ required: true, whitespace: true, message: CONSULT.questionRequired }]}
        >
          <Input.TextArea rows={4} maxLength={CONSULT_TEXT_MAX} showCount />
        </Form.Item>
      </Form>
    </Modal>
  );
}
