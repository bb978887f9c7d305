import { useState } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { Alert, Button, Input } from 'antd';
import { bindAndKeep, PatientApiError } from './patient.api';
import { PT } from './texts';
import './patient.css';

/**
 * /meil/bind?studyId=…: the page the study's QR code opens; the patient types the code staff sent them. The page
 * names no study: the server tells a study's name (on the home after binding) and whether binding is open (the
 * binding's answer) only to a live code of it.
 */
export default function PatientBindPage() {
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const studyId = Number(params.get('studyId'));
  const valid = Number.isInteger(studyId) && studyId > 0;
  const [code, setCode] = useState(params.get('code') ?? '');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async () => {
    if (!code.trim()) {
      setError(PT.codeRequired);
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await bindAndKeep(studyId, code.trim());
      void navigate('/meil', { replace: true });
    } catch (err) {
      setError(err instanceof PatientApiError ? err.message : '系统异常');
    } finally {
      setBusy(false);
    }
  };

  return (
    <main className="patient-page">
      <h1>{PT.bindTitle}</h1>
      {!valid ? (
        <Alert type="warning" showIcon title={PT.noStudy} />
      ) : (
        <div className="patient-card">
          <form
            onSubmit={(e) => {
              e.preventDefault();
              void submit();
            }}
          >
            <p className="patient-muted">{PT.bindHint}</p>
            <label htmlFor="patient-code">{PT.codeLabel}</label>
            <Input
              id="patient-code"
              className="patient-code-input"
              value={code}
              maxLength={20}
              autoComplete="one-time-code"
              autoCapitalize="characters"
              placeholder={PT.codePlaceholder}
              onChange={(e) => setCode(e.target.value)}
              style={{ margin: '8px 0 12px' }}
            />
            {error && <Alert type="error" showIcon title={error} style={{ marginBottom: 12 }} />}
            <Button type="primary" size="large" block htmlType="submit" loading={busy}>
              {PT.bind}
            </Button>
          </form>
        </div>
      )}
    </main>
  );
}
