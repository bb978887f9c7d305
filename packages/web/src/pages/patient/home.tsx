import { useQuery } from '@tanstack/react-query';
import { Link, useNavigate } from 'react-router';
import { Alert, Button, Spin, Tag } from 'antd';
import { queryKeys } from '../../api/query-keys';
import { patientApi, patientToken } from '../../api/patient.api';
import { PATIENT_TEXT } from '../../locales/patient.zh-CN';
import { isSignedOut, SignedOutPage } from './patient-page';
import { MessageOptOutCard } from './message-opt-out';
import './patient.css';

const STATE_COLOR = ['orange', 'blue', 'green'] as const;

/** /meil (with a patient session): the bound patient's home: the study, their code, the disease education and the forms to fill. */
export default function PatientHomePage() {
  const navigate = useNavigate();
  const token = patientToken.get();
  const home = useQuery({
    queryKey: queryKeys.patient.home(),
    enabled: Boolean(token),
    queryFn: () => patientApi.home(),
    retry: false,
  });

  if (isSignedOut(token, home.error)) return <SignedOutPage title={PATIENT_TEXT.homeTitle} error={home.error} />;
  if (!home.data) {
    return (
      <main className="patient-page">
        {home.isError ? <Alert type="error" showIcon title={home.error.message} /> : <Spin />}
      </main>
    );
  }
  const data = home.data;
  return (
    <main className="patient-page">
      <h1>{data.studyName}</h1>
      <div className="patient-card">
        <div>
          {PATIENT_TEXT.myCode}：<strong>{data.identificationCode}</strong> {data.subjectName}
        </div>
        {data.welcome && <p className="patient-note">{data.welcome}</p>}
      </div>
      {data.disease && (
        <div className="patient-card">
          <h2>{data.disease.title}</h2>
          <div className="patient-note">{data.disease.content}</div>
        </div>
      )}
      <h2>{PATIENT_TEXT.forms}</h2>
      {data.forms.length === 0 && <p className="patient-muted">{PATIENT_TEXT.noForms}</p>}
      <nav aria-label={PATIENT_TEXT.forms}>
        {data.forms.map((form) => (
          <Link key={form.crfId} to={`/meil/form/${form.crfId}`} className="patient-form-link">
            <span>
              {form.title}
              {form.visitName && <span className="patient-visit">{form.visitName}</span>}
            </span>
            <Tag color={STATE_COLOR[form.state]}>{PATIENT_TEXT.states[form.state]}</Tag>
          </Link>
        ))}
      </nav>
      <MessageOptOutCard />
      <Link to="/meil/consult" className="patient-form-link">
        <span>{PATIENT_TEXT.consult}</span>
      </Link>
      <Link to="/m/knowledge" className="patient-form-link">
        <span>{PATIENT_TEXT.knowledge}</span>
      </Link>
      <Button
        size="large"
        block
        className="patient-touch"
        onClick={() => {
          void patientApi.logout().finally(() => {
            patientToken.clear();
            void navigate('/meil', { replace: true });
          });
        }}
      >
        {PATIENT_TEXT.logout}
      </Button>
    </main>
  );
}
