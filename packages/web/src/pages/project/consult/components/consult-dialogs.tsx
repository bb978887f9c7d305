import { useMutation } from '@tanstack/react-query';
import { App, Button, Descriptions, Form, Input, Modal, Space } from 'antd';
import { CONSULT_TEXT_MAX, CONSULT_TITLE_MAX, type ConsultView } from '@ecrf/core';
import { consultApi } from '../../../../api/consult.api';
import { queryKeys } from '../../../../api/query-keys';
import { CONSULT_TEXT } from '../../../../locales/consult.zh-CN';
import { formatDate } from '../../../../utils/format-date';
import { PatientSearchSelect } from '../../components/patient-search-select';

/** 咨询详情 (查看), or 回复咨询 with the answer to write. */
export function ConsultDialog(props: {
  studyId: number;
  mode: 'view' | 'reply';
  row: ConsultView;
  onClose: () => void;
  onDone: () => void;
}) {
  const { row } = props;
  const { message } = App.useApp();
  const [form] = Form.useForm<{ answer: string }>();
  const answer = useMutation({
    mutationFn: (text: string) => consultApi.answer(props.studyId, row.id, text),
    onSuccess: () => {
      void message.success(CONSULT_TEXT.replied);
      props.onDone();
    },
  });
  const replying = props.mode === 'reply';
  return (
    <Modal
      open
      width={640}
      title={replying ? CONSULT_TEXT.replyTitle : CONSULT_TEXT.detailTitle}
      onCancel={props.onClose}
      footer={
        replying ? (
          <Space>
            <Button onClick={props.onClose}>{CONSULT_TEXT.cancel}</Button>
            <Button
              type="primary"
              loading={answer.isPending}
              onClick={() => void form.validateFields().then((v) => answer.mutate(v.answer.trim()))}
            >
              {CONSULT_TEXT.confirm}
            </Button>
          </Space>
        ) : (
          <Button onClick={props.onClose}>{CONSULT_TEXT.cancel}</Button>
        )
      }
    >
      <Descriptions column={2} size="small" bordered>
        <Descriptions.Item label={CONSULT_TEXT.code}>{row.identificationCode}</Descriptions.Item>
        <Descriptions.Item label={CONSULT_TEXT.name}>{row.subjectName}</Descriptions.Item>
        <Descriptions.Item label={CONSULT_TEXT.consultTitle} span={2}>
          {row.title}
        </Descriptions.Item>
        <Descriptions.Item label={CONSULT_TEXT.question} span={2}>
          <div style={{ whiteSpace: 'pre-wrap' }}>{row.question}</div>
        </Descriptions.Item>
        <Descriptions.Item label={CONSULT_TEXT.state}>{row.stateName}</Descriptions.Item>
        <Descriptions.Item label={CONSULT_TEXT.createTime}>{formatDate(row.createTime)}</Descriptions.Item>
        {!replying && (
          <>
            <Descriptions.Item label={CONSULT_TEXT.answer} span={2}>
              <div style={{ whiteSpace: 'pre-wrap' }}>{row.answer ?? CONSULT_TEXT.noAnswer}</div>
            </Descriptions.Item>
            <Descriptions.Item label={CONSULT_TEXT.answeredBy}>{row.answeredByName}</Descriptions.Item>
            <Descriptions.Item label={CONSULT_TEXT.answeredTime}>
              {row.answeredTime ? formatDate(row.answeredTime) : ''}
            </Descriptions.Item>
          </>
        )}
      </Descriptions>
      {replying && (
        <Form form={form} layout="vertical" style={{ marginTop: 16 }} initialValues={{ answer: row.answer ?? '' }}>
          <Form.Item
            name="answer"
            label={CONSULT_TEXT.answer}
            rules={[{ required: true, whitespace: true, message: CONSULT_TEXT.answerRequired }]}
          >
            <Input.TextArea
              rows={5}
              maxLength={CONSULT_TEXT_MAX}
              showCount
              placeholder={CONSULT_TEXT.answerPlaceholder}
            />
          </Form.Item>
        </Form>
      )}
    </Modal>
  );
}

/** 代患者提问: a question heard on the telephone or at the clinic, entered for the patient. */
export function AddDialog(props: { studyId: number; onClose: () => void; onDone: () => void }) {
  const { message } = App.useApp();
  const [form] = Form.useForm<{ subjectId: number; title: string; question: string }>();
  const add = useMutation({
    mutationFn: (v: { subjectId: number; title: string; question: string }) =>
      consultApi.add({ studyId: props.studyId, ...v }),
    onSuccess: () => {
      void message.success(CONSULT_TEXT.added);
      props.onDone();
    },
  });
  return (
    <Modal
      open
      title={CONSULT_TEXT.addTitle}
      onCancel={props.onClose}
      okText={CONSULT_TEXT.confirm}
      cancelText={CONSULT_TEXT.cancel}
      confirmLoading={add.isPending}
      onOk={() => void form.validateFields().then((v) => add.mutate(v))}
    >
      <Form form={form} layout="vertical">
        <Form.Item
          name="subjectId"
          label={CONSULT_TEXT.subject}
          rules={[{ required: true, message: CONSULT_TEXT.subjectRequired }]}
        >
          <PatientSearchSelect
            studyId={props.studyId}
            queryKey={(code) => queryKeys.consult.patients(props.studyId, code)}
            placeholder={CONSULT_TEXT.subjectPlaceholder}
            keepPrevious
          />
        </Form.Item>
        <Form.Item
          name="title"
          label={CONSULT_TEXT.consultTitle}
          rules={[{ required: true, whitespace: true, message: CONSULT_TEXT.titleRequired }]}
        >
          <Input maxLength={CONSULT_TITLE_MAX} />
        </Form.Item>
        <Form.Item
          name="question"
          label={CONSULT_TEXT.question}
          rules={[{ required: true, whitespace: true, message: CONSULT_TEXT.questionRequired }]}
        >
          <Input.TextArea rows={4} maxLength={CONSULT_TEXT_MAX} showCount />
        </Form.Item>
      </Form>
    </Modal>
  );
}
