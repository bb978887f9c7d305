import { useState } from 'react';
import { Alert } from 'antd';
import { MSG } from '@ecrf/core';
import { PatientApiError } from '../../api/patient.api';
import { PATIENT_TEXT } from '../../locales/patient.zh-CN';

/** No patient session on this phone, or the server no longer knows it (401): the page can only say so. */
export function isSignedOut(token: string | null, error: unknown): boolean {
  return !token || (error instanceof PatientApiError && error.status === 401);
}

/** A patient page without a session: its title and why (the server's words, else 尚未绑定). */
export function SignedOutPage({ title, error }: { title: string; error: unknown }) {
  return (
    <main className="patient-page">
      <h1>{title}</h1>
      <Alert type="info" showIcon title={error instanceof PatientApiError ? error.message : PATIENT_TEXT.notBound} />
    </main>
  );
}

/**
 * What a patient page's button does: busy while it runs, and its refusal to show (the server's words, else
 * 系统错误). `failed` runs first when it fails.
 */
export function usePatientAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = async (action: () => Promise<void>, failed?: () => void) => {
    setBusy(true);
    setError(null);
    try {
      await action();
    } catch (err) {
      failed?.();
      setError(err instanceof PatientApiError ? err.message : MSG.systemError);
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, setError, run };
}
