import { Button, Form, Input, InputNumber, Space } from 'antd';
import { DeleteOutlined, PlusOutlined } from '@ant-design/icons';
import { RANDOMIZATION_TEXT } from '../../../../locales/randomization.zh-CN';

const t = RANDOMIZATION_TEXT;

/** 分组与分配比例: two to six arms, each with its code, name and ratio (inside the configuration form). */
export function ArmsSection() {
  return (
    <>
      <h3 className="rand-section">{t.arms}</h3>
      <Form.List name="arms">
        {(arms, { add, remove }) => (
          <>
            {arms.map((arm) => (
              <Space key={arm.key} align="start" wrap>
                <Form.Item
                  name={[arm.name, 'code']}
                  label={t.armCode}
                  rules={[{ required: true, message: t.required }]}
                >
                  <Input maxLength={20} style={{ width: 100 }} />
                </Form.Item>
                <Form.Item
                  name={[arm.name, 'label']}
                  label={t.armLabel}
                  rules={[{ required: true, message: t.required }]}
                >
                  <Input maxLength={50} style={{ width: 180 }} />
                </Form.Item>
                <Form.Item name={[arm.name, 'ratio']} label={t.armRatio}>
                  <InputNumber min={1} max={10} style={{ width: 90 }} />
                </Form.Item>
                <Button
                  type="text"
                  aria-label={t.removeArm}
                  icon={<DeleteOutlined aria-hidden />}
                  disabled={arms.length <= 2}
                  onClick={() => remove(arm.name)}
                  className="rand-level-remove"
                />
              </Space>
            ))}
            <div>
              <Button
                type="dashed"
                size="small"
                icon={<PlusOutlined aria-hidden />}
                disabled={arms.length >= 6}
                onClick={() => add({ code: String.fromCharCode(65 + arms.length), label: '', ratio: 1 })}
              >
                {t.addArm}
              </Button>
            </div>
          </>
        )}
      </Form.List>
    </>
  );
}
