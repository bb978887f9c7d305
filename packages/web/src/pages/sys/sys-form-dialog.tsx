import { Col, Form, Radio, Row } from 'antd';
import { FormDialog, type FormDialogProps } from '../../components/form-dialog';
import { COMMON_TEXT } from '../../locales/common.zh-CN';
import { STATUS_OPTIONS } from './sys-shared';

/** A system page's add/edit dialog: labels 96 wide (wrapping), the fields in columns of a 16-gutter row. */
export function SysFormDialog<V>({ children, ...props }: Omit<FormDialogProps<V>, 'labelWidth' | 'labelWrap'>) {
  return (
    <FormDialog<V> {...props} labelWidth="96px" labelWrap>
      <Row gutter={16}>{children}</Row>
    </FormDialog>
  );
}

/** 状态 (正常 / 停用) in a system dialog, half the row wide. */
export function StatusField() {
  return (
    <Col span={12}>
      <Form.Item label={COMMON_TEXT.status} name="status">
        <Radio.Group options={STATUS_OPTIONS} />
      </Form.Item>
    </Col>
  );
}
