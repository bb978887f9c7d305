import { lazy, Suspense, useState } from 'react';
import { useMutation } from '@tanstack/react-query';
import { Alert, Button, Checkbox, Descriptions, Form, InputNumber, Space, Spin, Table } from 'antd';
import type { RandomizationFactor, SimulationResult } from '@ecrf/core';
import { randomizationApi } from '../../../../api/randomization.api';
import { RANDOMIZATION_TEXT } from '../../../../locales/randomization.zh-CN';
import { toDistributions } from '../config-form';

// echarts arrives with the first simulation's result, not with the page.
const SimulationCharts = lazy(() => import('./simulation-chart'));

const t = RANDOMIZATION_TEXT;
const pct = (v: number) => `${(v * 100).toFixed(1)}%`;

interface SimValues {
  patients: number;
  runs: number;
  shares?: Record<string, Record<string, number | null>>;
  fromPatients?: boolean;
}

/**
 * 随机模拟 (before go-live): the configuration in force run on simulated patients many times with a seed of its
 * own; the factor distributions are the shares of each level (empty: equal shares).
 */
export function SimulationPanel({ studyId, factors }: { studyId: number; factors: RandomizationFactor[] }) {
  const [form] = Form.useForm<SimValues>();
  const [result, setResult] = useState<SimulationResult | null>(null);
  const run = useMutation({
    mutationFn: (values: SimValues) => {
      const distributions = toDistributions(values.shares);
      return randomizationApi.simulate({
        studyId,
        patients: values.patients,
        runs: values.runs,
        ...(distributions ? { distributions } : {}),
        ...(values.fromPatients ? { fromPatients: true } : {}),
      });
    },
    onSuccess: (res) => setResult(res.data),
  });

  return (
    <div className="rand-sim">
      <Form
        form={form}
        name="rand-sim"
        initialValues={{ patients: 100, runs: 200 }}
        onFinish={(values) => run.mutate(values)}
        className="rand-sim-form"
      >
        <Space wrap align="start">
          <Form.Item name="patients" label={t.simPatients} rules={[{ required: true, message: t.required }]}>
            <InputNumber min={1} max={5000} />
          </Form.Item>
          <Form.Item name="runs" label={t.simRuns} rules={[{ required: true, message: t.required }]}>
            <InputNumber min={1} max={1000} />
          </Form.Item>
          <Button type="primary" htmlType="submit" loading={run.isPending}>
            {t.simulate}
          </Button>
        </Space>
        {factors.length > 0 && (
          <div className="rand-sim-shares">
            <p className="rand-muted">{t.sharesHint}</p>
            <Form.Item name="fromPatients" valuePropName="checked" className="rand-share-observed">
              <Checkbox>{t.sharesFromPatients}</Checkbox>
            </Form.Item>
            {factors.map((f) => (
              <Space key={f.key} wrap className="rand-share-row">
                <span className="rand-share-factor">{f.label}</span>
                {f.levels.map((l) => (
                  <Form.Item key={l.code} name={['shares', f.key, l.code]} label={l.label}>
                    <InputNumber min={0} max={100} suffix="%" style={{ width: 110 }} />
                  </Form.Item>
                ))}
              </Space>
            ))}
          </div>
        )}
      </Form>
      {result && (
        <>
          <Descriptions size="small" column={{ xs: 1, md: 4 }} bordered className="rand-sim-summary">
            <Descriptions.Item label={t.simOverallMean}>{result.overall.mean.toFixed(2)}</Descriptions.Item>
            <Descriptions.Item label={t.simOverallP95}>{result.overall.p95.toFixed(2)}</Descriptions.Item>
            <Descriptions.Item label={t.simOverallMax}>{result.overall.max.toFixed(2)}</Descriptions.Item>
            <Descriptions.Item label={t.predictability}>
              {result.predictability === null
                ? t.notBlock
                : t.predictabilityValue(pct(result.predictability), pct(result.predictabilityBaseline))}
            </Descriptions.Item>
          </Descriptions>
          {result.predictability !== null && result.predictability - result.predictabilityBaseline > 0.1 && (
            <Alert type="warning" showIcon className="rand-alert" title={t.predictableWarning} />
          )}
          <Table
            size="small"
            rowKey="code"
            pagination={false}
            className="rand-sim-arms"
            dataSource={result.arms}
            columns={[
              { title: t.armLabel, dataIndex: 'label' },
              { title: t.armRatio, dataIndex: 'ratio', width: 80 },
              { title: t.expectedSeries, dataIndex: 'expected', width: 100, render: (v: number) => v.toFixed(1) },
              { title: t.meanSeries, dataIndex: 'mean', width: 100, render: (v: number) => v.toFixed(1) },
              { title: t.minSeries, dataIndex: 'min', width: 80 },
              { title: t.maxSeries, dataIndex: 'max', width: 80 },
            ]}
          />
          <Suspense fallback={<Spin style={{ display: 'block', margin: '48px auto' }} />}>
            <SimulationCharts result={result} factors={factors} />
          </Suspense>
        </>
      )}
    </div>
  );
}
