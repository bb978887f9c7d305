import { useEffect } from 'react';
import { Col, DatePicker, Form, Input, InputNumber, Row, Select, Space } from 'antd';
import dayjs, { type Dayjs } from 'dayjs';
import { studyApi, type Study, type StudyBody } from '../../../../api/study.api';
import { AuthButton } from '../../../../components/permission';
import { useListMutation } from '../../../../components/table-page';
import { COMMON_TEXT } from '../../../../locales/common.zh-CN';
import { STUDY_TEXT } from '../../../../locales/study.zh-CN';
import { STUDY_CONFIG_TEXT } from '../../../../locales/study-config.zh-CN';
import { StudyIdentityFields } from '../../components/study-identity-fields';
import { queryKeys } from '../../../../api/query-keys';

type BasicFields = Pick<
  StudyBody,
  'studyName' | 'studyCode' | 'description' | 'principal' | 'status' | 'timeZone' | 'enrolmentTarget' | 'reason'
> & { enrolmentTargetDate?: Dayjs | null };

const ZONE_OPTIONS = STUDY_CONFIG_TEXT.timeZones.map(([value, label]) => ({ value, label }));

/** 基本信息: name, code, principal, status, time zone, enrolment target and description. */
export function BasicInfoForm({ study }: { study: Study }) {
  const [form] = Form.useForm<BasicFields>();

  useEffect(() => {
    const { studyName, studyCode, description, principal, status, timeZone } = study;
    form.setFieldsValue({
      studyName,
      studyCode,
      description,
      principal,
      status,
      timeZone,
      enrolmentTarget: study.enrolmentTarget ?? null,
      enrolmentTargetDate: study.enrolmentTargetDate ? dayjs(study.enrolmentTargetDate) : null,
    });
  }, [study, form]);

  const save = useListMutation({
    mutationFn: ({ enrolmentTargetDate, ...values }: BasicFields) =>
      studyApi.update({
        ...values,
        // An empty field clears the target (and the server clears its date with it).
        enrolmentTarget: values.enrolmentTarget ?? null,
        enrolmentTargetDate: enrolmentTargetDate ? enrolmentTargetDate.format('YYYY-MM-DD') : null,
        id: study.id,
        studyName: values.studyName?.trim(),
        studyCode: values.studyCode?.trim(),
      }),
    invalidate: [queryKeys.study.all()],
  });

  return (
    <Form
      form={form}
      name="study-basic"
      labelCol={{ flex: '96px' }}
      wrapperCol={{ flex: 1 }}
      style={{ maxWidth: 760 }}
      onFinish={(values) => save.mutate(values)}
    >
      <Row gutter={16}>
        <StudyIdentityFields placeholders={false} storedStatus={study.status} />
        <Col span={24}>
          <Form.Item label={STUDY_CONFIG_TEXT.timeZone} name="timeZone" extra={STUDY_CONFIG_TEXT.timeZoneHint}>
            <Select
              showSearch
              style={{ maxWidth: 360 }}
              options={
                ZONE_OPTIONS.some((o) => o.value === study.timeZone)
                  ? ZONE_OPTIONS
                  : [...ZONE_OPTIONS, { value: study.timeZone, label: study.timeZone }]
              }
            />
          </Form.Item>
        </Col>
        <Col span={24}>
          <Form.Item label={STUDY_CONFIG_TEXT.enrolmentTarget} extra={STUDY_CONFIG_TEXT.enrolmentTargetHint}>
            <Space wrap>
              <Form.Item name="enrolmentTarget" noStyle>
                <InputNumber
                  min={1}
                  max={1_000_000}
                  precision={0}
                  addonAfter={STUDY_CONFIG_TEXT.enrolmentTargetUnit}
                  aria-label={STUDY_CONFIG_TEXT.enrolmentTarget}
                  style={{ width: 160 }}
                />
              </Form.Item>
              <Form.Item name="enrolmentTargetDate" noStyle>
                <DatePicker
                  placeholder={STUDY_CONFIG_TEXT.enrolmentTargetDate}
                  aria-label={STUDY_CONFIG_TEXT.enrolmentTargetDate}
                />
              </Form.Item>
            </Space>
          </Form.Item>
        </Col>
        <Col span={24}>
          <Form.Item label={STUDY_TEXT.description} name="description">
            <Input.TextArea maxLength={500} showCount rows={4} />
          </Form.Item>
        </Col>
        <Col span={24}>
          <Form.Item label=" " colon={false}>
            <AuthButton code="study:config" type="primary" htmlType="submit" loading={save.isPending}>
              {COMMON_TEXT.save}
            </AuthButton>
          </Form.Item>
        </Col>
      </Row>
    </Form>
  );
}
