import type { ReactNode } from 'react';
import { Form, Modal, Spin, type FormInstance } from 'antd';
import { COMMON_TEXT } from '../locales/common.zh-CN';
import { validatedValues } from './validated-values';

export interface FormDialogProps<V> {
  /** Shown while true; its fields are dropped when it closes. */
  open: boolean;
  title: string;
  width: number;
  form: FormInstance<V>;
  /** The form's name: its fields' ids start with it. */
  name: string;
  /** The label column: 84px on the study pages, 96px (wrapping) on the system pages. */
  labelWidth: string;
  labelWrap?: boolean;
  initialValues?: Partial<V>;
  /** Covers the form while what it edits loads. */
  loading?: boolean;
  saving: boolean;
  /** Gets the values once every rule passes; a failed rule is already shown under its field. */
  onSave: (values: V) => void;
  onClose: () => void;
  /** A note under the form. */
  note?: ReactNode;
  children: ReactNode;
}

/** An add/edit dialog holding one horizontal form: 确定 checks the fields and hands their values to `onSave`. */
export function FormDialog<V>({
  open,
  title,
  width,
  form,
  name,
  labelWidth,
  labelWrap,
  initialValues,
  loading,
  saving,
  onSave,
  onClose,
  note,
  children,
}: FormDialogProps<V>) {
  const submit = async () => {
    const values = await validatedValues(form);
    if (values) onSave(values);
  };
  const body = (
    <Form
      form={form}
      initialValues={initialValues}
      name={name}
      labelCol={{ flex: labelWidth }}
      wrapperCol={{ flex: 1 }}
      labelWrap={labelWrap}
    >
      {children}
    </Form>
  );
  return (
    <Modal
      open={open}
      title={title}
      onCancel={onClose}
      onOk={() => void submit()}
      okText={COMMON_TEXT.ok}
      cancelText={COMMON_TEXT.cancel}
      confirmLoading={saving}
      width={width}
      destroyOnHidden
    >
      {loading === undefined ? body : <Spin spinning={loading}>{body}</Spin>}
      {note}
    </Modal>
  );
}
