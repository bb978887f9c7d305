import { useMemo, useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate } from 'react-router';
import { Alert, App, Button, Spin } from 'antd';
import { patientApi } from '../../api/patient.api';
import { queryKeys } from '../../api/query-keys';
import { CrfForm } from '../../crf';
import { PATIENT_TEXT } from '../../locales/patient.zh-CN';
import { usePatientAction } from './patient-page';
import './patient.css';

/**
 * /meil/form/{crfId}: a patient fills one assigned form with the same renderer and engine as staff; the server
 * judges the save with the staff save's rules. A submitted form is shown read-only.
 */
export default function PatientFormPage({ crfId }: { crfId: number }) {
  const id = crfId;
  const navigate = useNavigate();
  const { message } = App.useApp();
  const client = useQueryClient();
  const [values, setValues] = useState<Record<string, unknown> | null>(null);
  const [showAll, setShowAll] = useState(false);
  const { busy, error, run } = usePatientAction();
  const form = useQuery({
    queryKey: queryKeys.patient.form(id),
    enabled: Number.isInteger(id) && id > 0,
    queryFn: () => patientApi.form(id),
    retry: false,
  });
  const [openedAt] = useState(() => new Date());
  const context = useMemo(
    () => ({ now: openedAt, timeZone: form.data?.timeZone, forms: form.data?.formValues }),
    [openedAt, form.data],
  );

  if (form.isError) {
    return (
      <main className="patient-page">
        <Alert type="error" showIcon title={form.error.message} />
        <Link to="/meil">{PATIENT_TEXT.back}</Link>
      </main>
    );
  }
  if (!form.data) {
    return (
      <main className="patient-page">
        <Spin />
      </main>
    );
  }
  const data = form.data;
  const current = values ?? data.record?.values ?? data.initialValues ?? {};

  const save = (submit: boolean) =>
    run(
      async () => {
        await patientApi.save(id, {
          values: current,
          submit,
          ...(data.record && { crfDataRecordId: data.record.crfDataRecordId, version: data.record.version }),
        });
        void message.success(submit ? PATIENT_TEXT.submitted : PATIENT_TEXT.saved);
        await client.invalidateQueries({ queryKey: queryKeys.patient.all() });
        setValues(null);
        if (submit) void navigate('/meil');
      },
      // A refused submission shows every item's error.
      () => submit && setShowAll(true),
    );

  return (
    <main className="patient-page">
      <Link to="/meil">{PATIENT_TEXT.back}</Link>
      <h1>{data.crf.title}</h1>
      {data.visit && (
        <p className="patient-muted">
          {PATIENT_TEXT.visit}：{data.visit.visitName}（{data.visit.plannedDate}）
        </p>
      )}
      {!data.editable && <Alert type="info" showIcon title={PATIENT_TEXT.readOnly} style={{ marginBottom: 12 }} />}
      <div className="patient-card">
        <CrfForm
          definition={data.crf.definition}
          values={current}
          readOnly={!data.editable}
          context={context}
          showAllErrors={showAll}
          onChange={(next) => setValues(next)}
        />
      </div>
      {error && <Alert type="error" showIcon title={error} role="alert" />}
      {data.editable && (
        <div className="patient-actions">
          <Button size="large" loading={busy} onClick={() => void save(false)}>
            {PATIENT_TEXT.save}
          </Button>
          <Button type="primary" size="large" loading={busy} onClick={() => void save(true)}>
            {PATIENT_TEXT.submit}
          </Button>
        </div>
      )}
    </main>
  );
}
