import { Button, Form, Space, type FormInstance } from 'antd';
import { ReloadOutlined, SearchOutlined } from '@ant-design/icons';
import { COMMON_TEXT } from '../locales/common.zh-CN';

/** The 搜索 / 重置 pair closing every list page's filter form; 重置 clears the form and the applied filters. */
export function FilterButtons({ form, onReset }: { form: FormInstance; onReset: () => void }) {
  return (
    <Form.Item>
      <Space>
        <Button type="primary" htmlType="submit" icon={<SearchOutlined aria-hidden />}>
          {COMMON_TEXT.search}
        </Button>
        <Button
          icon={<ReloadOutlined aria-hidden />}
          onClick={() => {
            form.resetFields();
            onReset();
          }}
        >
          {COMMON_TEXT.reset}
        </Button>
      </Space>
    </Form.Item>
  );
}
