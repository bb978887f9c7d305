import { Col, Form, Input, Radio } from 'antd';
import { STUDY_TEXT } from '../../../locales/study.zh-CN';
import { ReopenReasonField } from './reopen-reason';
import { STUDY_CODE_PATTERN, STUDY_STATUS_OPTIONS } from './study-status-tag';

/**
 * A study's identity in its forms (新增/修改项目, 项目配置 → 基本信息): name, code, principal and, for a stored study,
 * its status with the reason a reopening asks for. Columns of the form's 16-gutter row.
 */
export function StudyIdentityFields({
  placeholders,
  storedStatus,
}: {
  /** The labels repeated in the empty fields (the dialog). */
  placeholders: boolean;
  /** The stored study's status; without one (a new study) there is no status field. */
  storedStatus?: number;
}) {
  const placeholder = (label: string) => (placeholders ? label : undefined);
  return (
    <>
      <Col span={24}>
        <Form.Item
          label={STUDY_TEXT.name}
          name="studyName"
          rules={[{ required: true, whitespace: true, message: STUDY_TEXT.nameRequired }]}
        >
          <Input maxLength={100} placeholder={placeholder(STUDY_TEXT.name)} />
        </Form.Item>
      </Col>
      <Col span={12}>
        <Form.Item
          label={STUDY_TEXT.code}
          name="studyCode"
          rules={[
            { required: true, whitespace: true, message: STUDY_TEXT.codeRequired },
            { pattern: STUDY_CODE_PATTERN, message: STUDY_TEXT.codePattern },
          ]}
        >
          <Input maxLength={50} placeholder={placeholder(STUDY_TEXT.code)} />
        </Form.Item>
      </Col>
      <Col span={12}>
        <Form.Item label={STUDY_TEXT.principal} name="principal">
          <Input maxLength={50} placeholder={placeholder(STUDY_TEXT.principal)} />
        </Form.Item>
      </Col>
      {storedStatus !== undefined && (
        <Col span={24}>
          <Form.Item label={STUDY_TEXT.status} name="status">
            <Radio.Group options={STUDY_STATUS_OPTIONS} />
          </Form.Item>
          <ReopenReasonField storedStatus={storedStatus} />
        </Col>
      )}
    </>
  );
}
