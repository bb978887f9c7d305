import { useState } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { Alert, Button, Input } from 'antd';
import { bindAndKeep } from '../../api/patient.api';
import { PATIENT_TEXT } from '../../locales/patient.zh-CN';
import { positiveIdOf } from '../../utils/positive-id';
import { usePatientAction } from './patient-page';
import './patient.css';

/**
 * /meil/bind?studyId=…: the page the study's QR code opens; the patient types the code staff sent them. The page
 * names no study: the server tells a study's name (on the home after binding) and whether binding is open (the
 * binding's answer) only to a live code of it.
 */
export default function PatientBindPage() {
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const studyId = positiveIdOf(params.get('studyId'));
  const valid = studyId !== null;
  const [code, setCode] = useState(params.get('code') ?? '');
  const { busy, error, setError, run } = usePatientAction();

  const submit = async () => {
    if (!code.trim()) {
      setError(PATIENT_TEXT.codeRequired);
      return;
    }
    await run(async () => {
      await bindAndKeep(studyId!, code.trim());
      void navigate('/meil', { replace: true });
    });
  };

  return (
    <main className="patient-page">
      <h1>{PATIENT_TEXT.bindTitle}</h1>
      {!valid ? (
        <Alert type="warning" showIcon title={PATIENT_TEXT.noStudy} />
      ) : (
        <div className="patient-card">
          <form
            onSubmit={(e) => {
              e.preventDefault();
              void submit();
            }}
          >
            <p className="patient-muted">{PATIENT_TEXT.bindHint}</p>
            <label htmlFor="patient-code">{PATIENT_TEXT.codeLabel}</label>
            <Input
              id="patient-code"
              className="patient-code-input"
              value={code}
              maxLength={20}
              autoComplete="one-time-code"
              autoCapitalize="characters"
              placeholder={PATIENT_TEXT.codePlaceholder}
              onChange={(e) => setCode(e.target.value)}
              style={{ margin: '8px 0 12px' }}
            />
            {error && <Alert type="error" showIcon title={error} style={{ marginBottom: 12 }} />}
            <Button type="primary" size="large" block htmlType="submit" loading={busy}>
              {PATIENT_TEXT.bind}
            </Button>
          </form>
        </div>
      )}
    </main>
  );
}
