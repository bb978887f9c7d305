import { Button, Card, Col, Form, Input, InputNumber, Radio, Row, Select, Space, type FormInstance } from 'antd';
import { DeleteOutlined, PlusOutlined } from '@ant-design/icons';
import { RANDOMIZATION_TEXT } from '../../../../locales/randomization.zh-CN';
import type { ConfigFormValues } from '../config-form';

const t = RANDOMIZATION_TEXT;

export interface FactorCardProps {
  form: FormInstance<ConfigFormValues>;
  /** The factor's index in the form's `factors` list. */
  name: number;
  remove: () => void;
  depts: Array<{ value: string; label: string }>;
  crfs: Array<{ value: number; label: string }>;
  minimization: boolean;
}

/** One factor: its source (site or a CRF item), its levels and (minimization) its weight. */
export function FactorCard({ form, name, remove, depts, crfs, minimization }: FactorCardProps) {
  const source = Form.useWatch(['factors', name, 'source'], form) as 'dept' | 'item' | undefined;
  const label = Form.useWatch(['factors', name, 'label'], form) as string | undefined;
  return (
    <Card
      size="small"
      className="rand-factor"
      title={label || t.factorN(name + 1)}
      extra={
        <Button type="text" danger size="small" icon={<DeleteOutlined aria-hidden />} onClick={remove}>
          {t.removeFactor}
        </Button>
      }
    >
      <Row gutter={12}>
        <Col xs={24} md={6}>
          <Form.Item name={[name, 'label']} label={t.factorLabel} rules={[{ required: true, message: t.required }]}>
            <Input maxLength={50} />
          </Form.Item>
        </Col>
        <Col xs={24} md={5}>
          <Form.Item
            name={[name, 'key']}
            label={t.factorKey}
            tooltip={t.factorKeyHint}
            rules={[
              { required: true, message: t.required },
              { pattern: /^[A-Za-z0-9_]+$/, message: t.factorKeyHint },
            ]}
          >
            <Input maxLength={30} />
          </Form.Item>
        </Col>
        <Col xs={24} md={7}>
          <Form.Item name={[name, 'source']} label={t.factorSource}>
            <Radio.Group
              optionType="button"
              options={[
                { value: 'dept', label: t.sourceDept },
                { value: 'item', label: t.sourceItem },
              ]}
            />
          </Form.Item>
        </Col>
        {minimization && (
          <Col xs={24} md={6}>
            <Form.Item name={[name, 'weight']} label={t.weight}>
              <InputNumber min={0.1} max={100} step={0.5} style={{ width: '100%' }} />
            </Form.Item>
          </Col>
        )}
      </Row>
      {source === 'item' && (
        <Row gutter={12}>
          <Col xs={24} md={12}>
            <Form.Item name={[name, 'crfId']} label={t.itemCrf} rules={[{ required: true, message: t.required }]}>
              <Select options={crfs} showSearch optionFilterProp="label" />
            </Form.Item>
          </Col>
          <Col xs={24} md={12}>
            <Form.Item
              name={[name, 'itemName']}
              label={t.itemName}
              tooltip={t.itemNameHint}
              rules={[{ required: true, message: t.required }]}
            >
              <Input maxLength={100} />
            </Form.Item>
          </Col>
        </Row>
      )}
      <Form.List name={[name, 'levels']}>
        {(levels, { add, remove: removeLevel }) => (
          <div className="rand-levels">
            {levels.map((level) => (
              <Space key={level.key} align="start" wrap className="rand-level">
                <Form.Item
                  name={[level.name, 'code']}
                  label={t.levelCode}
                  rules={[{ required: true, message: t.required }]}
                >
                  <Input maxLength={20} style={{ width: 90 }} />
                </Form.Item>
                <Form.Item
                  name={[level.name, 'label']}
                  label={t.levelLabel}
                  rules={[{ required: true, message: t.required }]}
                >
                  <Input maxLength={50} style={{ width: 140 }} />
                </Form.Item>
                {source === 'dept' ? (
                  <Form.Item name={[level.name, 'values']} label={t.levelDepts}>
                    <Select mode="multiple" options={depts} style={{ minWidth: 220 }} optionFilterProp="label" />
                  </Form.Item>
                ) : (
                  <>
                    <Form.Item name={[level.name, 'values']} label={t.levelValues} tooltip={t.levelValuesHint}>
                      <Input style={{ width: 140 }} />
                    </Form.Item>
                    <Form.Item name={[level.name, 'min']} label={t.levelMin}>
                      <InputNumber style={{ width: 90 }} />
                    </Form.Item>
                    <Form.Item name={[level.name, 'max']} label={t.levelMax}>
                      <InputNumber style={{ width: 90 }} />
                    </Form.Item>
                  </>
                )}
                <Button
                  type="text"
                  aria-label={t.removeLevel}
                  icon={<DeleteOutlined aria-hidden />}
                  disabled={levels.length <= 2}
                  onClick={() => removeLevel(level.name)}
                  className="rand-level-remove"
                />
              </Space>
            ))}
            <Button
              type="dashed"
              size="small"
              icon={<PlusOutlined aria-hidden />}
              onClick={() => add({ code: `L${levels.length + 1}`, label: '' })}
            >
              {t.addLevel}
            </Button>
          </div>
        )}
      </Form.List>
    </Card>
  );
}
