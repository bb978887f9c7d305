import { Button, Form, Input, Select, Space } from 'antd';
import { DeleteOutlined, PlusOutlined } from '@ant-design/icons';
import { RANDOMIZATION_TEXT } from '../../../../locales/randomization.zh-CN';

const t = RANDOMIZATION_TEXT;

/** 随机条件: the forms that must be submitted and the item values required before a patient is randomized. */
export function EligibilitySection({ crfs }: { crfs: Array<{ value: number; label: string }> }) {
  return (
    <>
      <h3 className="rand-section">{t.eligibility}</h3>
      <Form.Item name="eligibilityCrfIds" label={t.eligibilityCrfs} tooltip={t.eligibilityCrfsHint}>
        <Select mode="multiple" options={crfs} optionFilterProp="label" />
      </Form.Item>
      <Form.List name="eligibilityItems">
        {(items, { add, remove }) => (
          <>
            {items.map((item) => (
              <Space key={item.key} align="start" wrap>
                <Form.Item
                  name={[item.name, 'crfId']}
                  label={t.itemCrf}
                  rules={[{ required: true, message: t.required }]}
                >
                  <Select options={crfs} style={{ width: 200 }} optionFilterProp="label" showSearch />
                </Form.Item>
                <Form.Item
                  name={[item.name, 'itemName']}
                  label={t.itemName}
                  rules={[{ required: true, message: t.required }]}
                >
                  <Input style={{ width: 160 }} />
                </Form.Item>
                <Form.Item
                  name={[item.name, 'values']}
                  label={t.requiredValues}
                  tooltip={t.levelValuesHint}
                  rules={[{ required: true, message: t.required }]}
                >
                  <Input style={{ width: 160 }} />
                </Form.Item>
                <Button
                  type="text"
                  aria-label={t.removeCondition}
                  icon={<DeleteOutlined aria-hidden />}
                  onClick={() => remove(item.name)}
                  className="rand-level-remove"
                />
              </Space>
            ))}
            <div>
              <Button type="dashed" size="small" icon={<PlusOutlined aria-hidden />} onClick={() => add({})}>
                {t.addCondition}
              </Button>
            </div>
          </>
        )}
      </Form.List>
    </>
  );
}
