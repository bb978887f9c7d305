import { useEffect, useRef, useState } from 'react';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import { Alert, Spin } from 'antd';
import { MSG } from '@ecrf/core';
import PatientBindPage from './bind';
import PatientConsultPage from './consult';
import PatientFormPage from './form';
import PatientHomePage from './home';
import { bindAndKeep, PatientApiError, patientToken } from '../../api/patient.api';
import { PATIENT_TEXT } from '../../locales/patient.zh-CN';
import { positiveIdOf } from '../../utils/positive-id';
import './patient.css';

/**
 * /meil (platform §2: the public, hidden route) is the patient side on the phone, all of it under the one
 * route the spec leaves without authorization: /meil the entry and home, /meil/bind?studyId=… the page the
 * study's QR code opens, /meil/form/{crfId} one assigned form, /meil/consult 在线咨询 (docs/patient-portal.md).
 */
export default function MeilPage() {
  const rest = useParams()['*'] ?? '';
  const form = /^form\/(\d{1,9})$/.exec(rest);
  if (rest === 'bind') return <PatientBindPage />;
  if (rest === 'consult') return <PatientConsultPage />;
  if (form) return <PatientFormPage key={form[1]} crfId={Number(form[1])} />;
  return <MeilEntry />;
}

/**
 * The entry from a message link: staff send `/meil?studyId=…&code=…` by text message or WeChat; opening it
 * binds with the code and shows the patient's home. Without a code, a bound phone sees its home and any
 * other is told to use the link.
 */
function MeilEntry() {
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const studyId = positiveIdOf(params.get('studyId'));
  const code = params.get('code')?.trim() ?? '';
  const [error, setError] = useState<string | null>(null);
  const started = useRef(false);

  useEffect(() => {
    if (started.current) return;
    started.current = true;
    if (!code || studyId === null) return;
    bindAndKeep(studyId, code)
      .then(() => navigate('/meil', { replace: true }))
      .catch((err: unknown) => setError(err instanceof PatientApiError ? err.message : MSG.systemError));
  }, [code, studyId, navigate]);

  if (!code && patientToken.get()) return <PatientHomePage />;
  return (
    <main className="patient-page">
      <h1>{PATIENT_TEXT.meilTitle}</h1>
      {error ? (
        <>
          <Alert type="error" showIcon title={error} style={{ marginBottom: 12 }} />
          <Link to={`/meil/bind?studyId=${studyId}`}>{PATIENT_TEXT.retry}</Link>
        </>
      ) : code ? (
        <Spin tip={PATIENT_TEXT.meilBinding}>
          <div style={{ height: 80 }} />
        </Spin>
      ) : (
        <Alert type="info" showIcon title={PATIENT_TEXT.meilNoCode} />
      )}
    </main>
  );
}
