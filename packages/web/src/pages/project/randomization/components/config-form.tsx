import { useEffect, useMemo, useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, App, Button, Col, Form, Input, InputNumber, Row, Select, Switch } from 'antd';
import { RANDOMIZATION_METHOD_LABELS, RANDOMIZATION_METHODS } from '@ecrf/core';
import { queryKeys } from '../../../../api/query-keys';
import { randomizationApi, type RandomizationConfigView } from '../../../../api/randomization.api';
import { crfApi } from '../../../../api/study.api';
import { RANDOMIZATION_TEXT } from '../../../../locales/randomization.zh-CN';
import { checkForm, fromConfig, toConfig, type ConfigFormValues } from '../config-form';
import { ArmsSection } from './arms-section';
import { EligibilitySection } from './eligibility-section';
import { FactorsSection } from './factors-section';
import { ListUpload, type ChosenList } from './list-upload';

const t = RANDOMIZATION_TEXT;
const METHOD_OPTIONS = RANDOMIZATION_METHODS.map((m) => ({ value: m, label: RANDOMIZATION_METHOD_LABELS[m] }));

/**
 * 随机化配置: arms and ratio, blinding, the method with its block sizes, strata or minimization factors, the list
 * length, eligibility, an uploaded list; saving makes a new version (with a reason once a patient is randomized).
 */
export function ConfigForm({ studyId, view }: { studyId: number; view: RandomizationConfigView }) {
  const [form] = Form.useForm<ConfigFormValues>();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const [errors, setErrors] = useState<string[]>([]);
  const [list, setList] = useState<ChosenList | null>(null);
  const [reason, setReason] = useState('');
  const method = Form.useWatch('method', form);

  const depts = useQuery({
    queryKey: queryKeys.randomization.depts(studyId),
    queryFn: () => randomizationApi.factorDepts(studyId).then((res) => res.data),
  });
  const crfs = useQuery({
    queryKey: queryKeys.crf.options(studyId),
    queryFn: () => crfApi.options(studyId).then((res) => res.data),
  });
  const crfOptions = useMemo(() => (crfs.data ?? []).map((c) => ({ value: c.id, label: c.title })), [crfs.data]);

  const initial = useMemo(() => fromConfig(view.config), [view.config]);
  useEffect(() => form.setFieldsValue(initial), [form, initial]);

  const save = useMutation({
    mutationFn: (values: ConfigFormValues) =>
      randomizationApi.save({
        studyId,
        config: toConfig(values),
        listCsv: list?.text ?? null,
        reason: view.locked ? reason.trim() : null,
      }),
    onSuccess: (res) => {
      message.success(t.saved(res.data.version, res.data.slots));
      setList(null);
      setReason('');
      void queryClient.invalidateQueries({ queryKey: queryKeys.randomization.all() });
    },
  });

  const submit = async () => {
    const values = await form.validateFields();
    const problems = checkForm(values);
    if (view.locked && !reason.trim()) problems.unshift(t.reasonRequired);
    setErrors(problems);
    if (problems.length === 0) save.mutate(values);
  };

  const blocks = method === 'block' || method === 'stratified_block';

  return (
    <Form form={form} layout="vertical" initialValues={initial} className="rand-config" name="rand-config">
      {view.locked && (
        <Alert type="warning" showIcon className="rand-alert" title={t.lockedHint(view.randomizedCount)} />
      )}
      <Row gutter={16}>
        <Col xs={24} md={10}>
          <Form.Item name="method" label={t.method}>
            <Select options={METHOD_OPTIONS} />
          </Form.Item>
        </Col>
        <Col xs={12} md={4}>
          <Form.Item name="blinded" label={t.blinded} valuePropName="checked">
            <Switch checkedChildren={t.blindYes} unCheckedChildren={t.blindNo} />
          </Form.Item>
        </Col>
        {blocks && (
          <>
            <Col xs={12} md={5}>
              <Form.Item
                name="blockSizes"
                label={t.blockSizes}
                tooltip={t.blockSizesHint}
                rules={[{ required: true, message: t.required }]}
              >
                <Input />
              </Form.Item>
            </Col>
            <Col xs={12} md={5}>
              <Form.Item name="listLength" label={t.listLength} tooltip={t.listLengthHint}>
                <InputNumber min={1} max={10000} style={{ width: '100%' }} />
              </Form.Item>
            </Col>
          </>
        )}
      </Row>

      <ArmsSection />

      {(method === 'stratified_block' || method === 'minimization') && (
        <FactorsSection form={form} method={method} depts={depts.data} crfs={crfOptions} />
      )}

      <EligibilitySection crfs={crfOptions} />

      {method !== 'minimization' && <ListUpload list={list} onChange={setList} />}

      {view.locked && (
        <Form.Item label={t.reason} required className="rand-reason">
          <Input.TextArea
            aria-label={t.reason}
            value={reason}
            maxLength={500}
            rows={2}
            onChange={(e) => setReason(e.target.value)}
          />
        </Form.Item>
      )}
      {errors.length > 0 && (
        <Alert
          type="error"
          showIcon
          className="rand-alert"
          title={t.configErrors}
          description={
            <ul className="rand-errors">
              {errors.map((e) => (
                <li key={e}>{e}</li>
              ))}
            </ul>
          }
        />
      )}
      <div className="rand-actions">
        <Button type="primary" loading={save.isPending} onClick={() => void submit()}>
          {view.configured ? t.saveVersion : t.save}
        </Button>
      </div>
    </Form>
  );
}
