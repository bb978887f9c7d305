import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { Alert, App, Button, Input, Spin, Tag } from 'antd';
import dayjs from 'dayjs';
import { CONSULT_TEXT_MAX, CONSULT_TITLE_MAX, consultQuestionInput, MSG } from '@ecrf/core';
import { patientApi, patientToken } from '../../api/patient.api';
import { queryKeys } from '../../api/query-keys';
import { PATIENT_TEXT } from '../../locales/patient.zh-CN';
import { isSignedOut, SignedOutPage, usePatientAction } from './patient-page';
import './patient.css';

const STATE_COLOR = ['orange', 'green', 'default'] as const;

const when = (value: string | null) => (value ? dayjs(value).format('YYYY-MM-DD HH:mm') : '');

/**
 * /meil/consult: 在线咨询 on the phone (docs/content.md, Consultation): the patient asks the study a question and
 * reads their own questions with their state and the study's answer. The form checks what the server checks
 * (the shared `consultQuestionInput`), so a refusal is shown before the call.
 */
export default function PatientConsultPage() {
  const { message } = App.useApp();
  const client = useQueryClient();
  const token = patientToken.get();
  const [title, setTitle] = useState('');
  const [question, setQuestion] = useState('');
  const { busy, error, setError, run } = usePatientAction();
  const list = useQuery({
    queryKey: queryKeys.patient.consults(),
    enabled: Boolean(token),
    queryFn: () => patientApi.consults(),
    retry: false,
  });

  if (isSignedOut(token, list.error)) return <SignedOutPage title={PATIENT_TEXT.consult} error={list.error} />;

  const submit = async () => {
    const parsed = consultQuestionInput.safeParse({ title, question });
    if (!parsed.success) {
      setError(parsed.error.issues[0]?.message ?? MSG.systemError);
      return;
    }
    await run(async () => {
      await patientApi.ask(parsed.data);
      void message.success(PATIENT_TEXT.asked);
      setTitle('');
      setQuestion('');
      await client.invalidateQueries({ queryKey: queryKeys.patient.consults() });
    });
  };

  return (
    <main className="patient-page">
      <Link to="/meil">{PATIENT_TEXT.back}</Link>
      <h1>{PATIENT_TEXT.consult}</h1>
      <section className="patient-card" aria-labelledby="patient-ask">
        <h2 id="patient-ask" style={{ marginTop: 0 }}>
          {PATIENT_TEXT.ask}
        </h2>
        <p className="patient-muted">{PATIENT_TEXT.consultHint}</p>
        <form
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            void submit();
          }}
        >
          <label htmlFor="consult-title">{PATIENT_TEXT.consultTitle}</label>
          <Input
            id="consult-title"
            size="large"
            className="patient-field"
            value={title}
            maxLength={CONSULT_TITLE_MAX}
            placeholder={PATIENT_TEXT.consultTitlePlaceholder}
            onChange={(e) => setTitle(e.target.value)}
          />
          <label htmlFor="consult-question">{PATIENT_TEXT.consultQuestion}</label>
          <Input.TextArea
            id="consult-question"
            className="patient-field"
            value={question}
            maxLength={CONSULT_TEXT_MAX}
            showCount
            autoSize={{ minRows: 4, maxRows: 10 }}
            style={{ marginBottom: 30 }}
            placeholder={PATIENT_TEXT.consultQuestionPlaceholder}
            onChange={(e) => setQuestion(e.target.value)}
          />
          {error && <Alert type="error" showIcon title={error} role="alert" style={{ marginBottom: 12 }} />}
          <Button type="primary" size="large" block htmlType="submit" loading={busy}>
            {PATIENT_TEXT.askSubmit}
          </Button>
        </form>
      </section>

      <h2>{PATIENT_TEXT.myConsults}</h2>
      {list.isError && <Alert type="error" showIcon title={list.error.message} />}
      {!list.data && !list.isError && <Spin />}
      {list.data?.length === 0 && <p className="patient-muted">{PATIENT_TEXT.noConsults}</p>}
      <ul className="patient-consults" aria-label={PATIENT_TEXT.myConsults}>
        {list.data?.map((item) => (
          <li key={item.id} className="patient-card" aria-label={item.title}>
            <div className="patient-consult-head">
              <strong>{item.title}</strong>
              <Tag color={STATE_COLOR[item.state]}>{PATIENT_TEXT.consultStates[item.state]}</Tag>
            </div>
            <p className="patient-muted patient-small">
              {PATIENT_TEXT.askedAt} {when(item.createdAt)}
            </p>
            <p className="patient-note">{item.question}</p>
            {item.answer && (
              <div className="patient-answer">
                <div className="patient-small">
                  <strong>{PATIENT_TEXT.answer}</strong>
                  {item.answeredAt && (
                    <span className="patient-muted">
                      {' '}
                      {PATIENT_TEXT.answeredAt} {when(item.answeredAt)}
                    </span>
                  )}
                </div>
                <div className="patient-note">{item.answer}</div>
              </div>
            )}
            {item.state === 2 && <p className="patient-muted patient-small">{PATIENT_TEXT.closedNote}</p>}
          </li>
        ))}
      </ul>
    </main>
  );
}
