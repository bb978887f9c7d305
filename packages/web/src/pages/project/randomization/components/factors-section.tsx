import { useMemo } from 'react';
import { Button, Col, Form, InputNumber, Radio, Row, Space, type FormInstance } from 'antd';
import { PlusOutlined } from '@ant-design/icons';
import { RANDOMIZATION_TEXT } from '../../../../locales/randomization.zh-CN';
import { strataCount, type ConfigFormValues } from '../config-form';
import { FactorCard } from './factor-card';

const t = RANDOMIZATION_TEXT;

export interface FactorsSectionProps {
  form: FormInstance<ConfigFormValues>;
  method: 'stratified_block' | 'minimization';
  /** The study's sites, the levels a new site factor starts with. */
  depts: Array<{ deptId: number; deptName: string }> | undefined;
  crfs: Array<{ value: number; label: string }>;
}

/** 分层因素 (with the strata count) or 最小化因素 (with imbalance and probability): the factors as cards. */
export function FactorsSection({ form, method, depts, crfs }: FactorsSectionProps) {
  const factors = Form.useWatch('factors', form);
  const deptOptions = useMemo(
    () => (depts ?? []).map((d) => ({ value: String(d.deptId), label: d.deptName })),
    [depts],
  );
  const strata = strataCount({ method, factors: factors ?? [] });

  return (
    <>
      <h3 className="rand-section">
        {method === 'minimization' ? t.minFactors : t.strataFactors}
        {method === 'stratified_block' && <span className="rand-muted">{t.strataCount(strata)}</span>}
      </h3>
      {method === 'minimization' && (
        <Row gutter={16}>
          <Col xs={24} md={8}>
            <Form.Item name="imbalance" label={t.imbalance}>
              <Radio.Group
                optionType="button"
                options={[
                  { value: 'range', label: t.range },
                  { value: 'variance', label: t.variance },
                ]}
              />
            </Form.Item>
          </Col>
          <Col xs={24} md={8}>
            <Form.Item name="p" label={t.probability} tooltip={t.probabilityHint}>
              <InputNumber min={0.5} max={1} step={0.05} style={{ width: '100%' }} />
            </Form.Item>
          </Col>
        </Row>
      )}
      <Form.List name="factors">
        {(items, { add, remove }) => (
          <>
            {items.map((item) => (
              <FactorCard
                key={item.key}
                form={form}
                name={item.name}
                remove={() => remove(item.name)}
                depts={deptOptions}
                crfs={crfs}
                minimization={method === 'minimization'}
              />
            ))}
            <Space wrap>
              <Button
                icon={<PlusOutlined aria-hidden />}
                onClick={() =>
                  add({
                    key: items.length === 0 ? 'site' : `f${items.length + 1}`,
                    label: items.length === 0 ? t.sourceDept : '',
                    source: 'dept',
                    weight: 1,
                    levels: (depts ?? []).slice(0, 2).map((d, i) => ({
                      code: `S${i + 1}`,
                      label: d.deptName,
                      values: [String(d.deptId)],
                    })),
                  })
                }
              >
                {t.addDeptFactor}
              </Button>
              <Button
                icon={<PlusOutlined aria-hidden />}
                onClick={() =>
                  add({
                    key: `f${items.length + 1}`,
                    label: '',
                    source: 'item',
                    weight: 1,
                    levels: [
                      { code: 'L1', label: '' },
                      { code: 'L2', label: '' },
                    ],
                  })
                }
              >
                {t.addItemFactor}
              </Button>
            </Space>
          </>
        )}
      </Form.List>
    </>
  );
}
