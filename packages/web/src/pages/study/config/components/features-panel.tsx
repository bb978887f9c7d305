import { useEffect, useMemo, type ReactNode } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Form, Input, InputNumber, Radio, Select, Space, Spin, Switch, Typography, type FormInstance } from 'antd';
import {
  crfApi,
  studyApi,
  type FollowTrigger,
  type SerialNumberPattern,
  type SignConfig,
  type Study,
} from '../../../../api/study.api';
import { AuthButton, AuthSwitch, useAccess } from '../../../../components/permission';
import { useListMutation } from '../../../../components/table-page';
import { COMMON_TEXT } from '../../../../locales/common.zh-CN';
import { STUDY_CONFIG_TEXT } from '../../../../locales/study-config.zh-CN';
import { STUDY_CODE_PATTERN } from '../../components/study-status-tag';
import { dateItems } from '../../crf-items';
import { Section } from './section';
import { SpineBandSetSection } from './spine-band-set-section';
import { queryKeys } from '../../../../api/query-keys';

const PERM = 'study:config';

/**
 * A setting's section: its on/off switch first, then its fields, and 保存 under them for those with 项目配置
 * (labels 110 wide, at most 720 across); the spinner covers the form while the stored setting loads.
 */
function SettingsSection<V>({
  title,
  hint,
  form,
  name,
  loading,
  save,
  switchLabel,
  switchDisabled,
  children,
}: {
  title: string;
  hint?: string;
  form: FormInstance<V>;
  /** The form's name: its fields' ids start with it. */
  name: string;
  loading: boolean;
  save: { isPending: boolean; mutate: (values: V) => void };
  /** The label of the `enabled` switch. */
  switchLabel: string;
  switchDisabled?: boolean;
  children: ReactNode;
}) {
  return (
    <Section title={title} hint={hint}>
      <Spin spinning={loading}>
        <Form
          form={form}
          name={name}
          labelCol={{ flex: '110px' }}
          wrapperCol={{ flex: 1 }}
          style={{ maxWidth: 720 }}
          onFinish={(values) => save.mutate(values)}
        >
          <Form.Item label={switchLabel} name="enabled" valuePropName="checked">
            <Switch aria-label={switchLabel} disabled={switchDisabled} />
          </Form.Item>
          {children}
          <Form.Item label=" " colon={false}>
            <AuthButton code={PERM} type="primary" htmlType="submit" loading={save.isPending}>
              {COMMON_TEXT.save}
            </AuthButton>
          </Form.Item>
        </Form>
      </Spin>
    </Section>
  );
}

/** 质疑功能: whether staff may raise data queries in this study (doubt '1'). */
function DoubtSwitch({ study }: { study: Study }) {
  const doubt = useQuery({
    queryKey: queryKeys.studyConfig.doubt(study.id),
    queryFn: () => studyApi.getDoubt(study.id).then((res) => res.data),
  });
  const save = useListMutation({
    mutationFn: (on: boolean) => studyApi.setDoubt(study.id, on ? '1' : '0'),
    invalidate: [queryKeys.studyConfig.doubt(study.id), queryKeys.study.all()],
  });
  const on = String(doubt.data ?? study.doubt) === '1';
  return (
    <Section title={STUDY_CONFIG_TEXT.doubt} hint={STUDY_CONFIG_TEXT.doubtHint}>
      <AuthSwitch
        code={PERM}
        aria-label={STUDY_CONFIG_TEXT.doubt}
        checked={on}
        loading={doubt.isLoading || save.isPending}
        onChange={(next) => save.mutate(next)}
      />
    </Section>
  );
}

/** 电子签名: whether forms are signed, and the statement the signer confirms. */
function SignSection({ study }: { study: Study }) {
  const [form] = Form.useForm<SignConfig>();
  const enabled = Form.useWatch('enabled', form);
  const sign = useQuery({
    queryKey: queryKeys.studyConfig.sign(study.id),
    queryFn: () => studyApi.signConfig(study.id).then((res) => res.data),
  });

  useEffect(() => {
    const value = sign.data ?? study.signConfig;
    if (value) form.setFieldsValue({ enabled: value.enabled, meaning: value.meaning ?? '' });
  }, [sign.data, study.signConfig, form]);

  const save = useListMutation({
    mutationFn: (values: SignConfig) =>
      studyApi.update({ id: study.id, signConfig: { enabled: values.enabled, meaning: values.meaning?.trim() ?? '' } }),
    invalidate: [queryKeys.studyConfig.sign(study.id), queryKeys.study.all()],
  });

  return (
    <SettingsSection
      title={STUDY_CONFIG_TEXT.sign}
      form={form}
      name="study-sign"
      loading={sign.isLoading}
      save={save}
      switchLabel={STUDY_CONFIG_TEXT.signEnabled}
    >
      <Form.Item
        label={STUDY_CONFIG_TEXT.signMeaning}
        name="meaning"
        rules={[{ required: Boolean(enabled), whitespace: true, message: STUDY_CONFIG_TEXT.signMeaningRequired }]}
      >
        <Input.TextArea rows={2} maxLength={200} showCount placeholder={STUDY_CONFIG_TEXT.signMeaningPlaceholder} />
      </Form.Item>
    </SettingsSection>
  );
}

interface SerialFields extends SerialNumberPattern {
  enabled: boolean;
}

/** 自动编号: subject codes made by the server from a prefix and a running number (v2 calls). */
function SerialNumberSection({ study }: { study: Study }) {
  const [form] = Form.useForm<SerialFields>();
  const enabled = Form.useWatch('enabled', form);
  const serial = useQuery({
    queryKey: queryKeys.studyConfig.serial(study.id),
    queryFn: () => studyApi.serialNumber(study.id).then((res) => res.data),
  });

  useEffect(() => {
    if (!serial.data) return;
    const { enableSerialNumber, prefix, digits, scope } = serial.data;
    form.setFieldsValue({
      enabled: enableSerialNumber,
      prefix: prefix ?? '',
      digits: digits || 4,
      scope: scope ?? 'study',
    });
  }, [serial.data, form]);

  const save = useListMutation({
    mutationFn: (values: SerialFields) =>
      values.enabled
        ? studyApi.enableSerialNumber({
            studyId: study.id,
            prefix: values.prefix?.trim() ?? '',
            digits: values.digits,
            scope: values.scope,
          })
        : studyApi.closeSerialNumber(study.id),
    invalidate: [queryKeys.studyConfig.serial(study.id), queryKeys.study.all()],
  });

  return (
    <SettingsSection
      title={STUDY_CONFIG_TEXT.serial}
      hint={STUDY_CONFIG_TEXT.serialHint}
      form={form}
      name="study-serial"
      loading={serial.isLoading}
      save={save}
      switchLabel={STUDY_CONFIG_TEXT.serialEnabled}
    >
      <Form.Item
        label={STUDY_CONFIG_TEXT.prefix}
        name="prefix"
        rules={[{ pattern: STUDY_CODE_PATTERN, message: STUDY_CONFIG_TEXT.prefixPattern }]}
      >
        <Input maxLength={20} disabled={!enabled} style={{ width: 200 }} placeholder="BJ-" />
      </Form.Item>
      <Form.Item
        label={STUDY_CONFIG_TEXT.digits}
        name="digits"
        rules={[{ required: Boolean(enabled), message: STUDY_CONFIG_TEXT.digitsRequired }]}
      >
        <InputNumber min={1} max={10} precision={0} disabled={!enabled} style={{ width: 120 }} />
      </Form.Item>
      <Form.Item label={STUDY_CONFIG_TEXT.scope} name="scope">
        <Radio.Group
          disabled={!enabled}
          options={[
            { value: 'study', label: STUDY_CONFIG_TEXT.scopeStudy },
            { value: 'site', label: STUDY_CONFIG_TEXT.scopeSite },
          ]}
        />
      </Form.Item>
      {serial.data?.enableSerialNumber && serial.data.preview && (
        <Form.Item label={STUDY_CONFIG_TEXT.preview}>
          <Typography.Text code aria-label={STUDY_CONFIG_TEXT.preview}>
            {serial.data.preview}
          </Typography.Text>
        </Form.Item>
      )}
    </SettingsSection>
  );
}

/** 随访触发: a follow-up planned a number of days after a date item of a form (v1 call). */
function FollowTriggerSection({ study }: { study: Study }) {
  const { can } = useAccess();
  const [form] = Form.useForm<FollowTrigger>();
  const enabled = Form.useWatch('enabled', form);
  const crfId = Form.useWatch('crfId', form);
  const trigger = useQuery({
    queryKey: queryKeys.studyConfig.follow(study.id),
    queryFn: () => studyApi.followTrigger(study.id).then((res) => res.data),
  });
  const crfs = useQuery({
    queryKey: queryKeys.crf.options(study.id),
    queryFn: () => crfApi.options(study.id).then((res) => res.data),
  });
  const detail = useQuery({
    queryKey: queryKeys.crf.detail(crfId),
    enabled: typeof crfId === 'number',
    queryFn: () => crfApi.get(crfId!).then((res) => res.data),
  });
  const items = useMemo(() => dateItems(detail.data?.definition), [detail.data]);

  useEffect(() => {
    if (!trigger.data) return;
    const { enabled: on, crfId: crf, itemName, offsetDays } = trigger.data;
    form.setFieldsValue({ enabled: on, crfId: crf ?? null, itemName: itemName ?? null, offsetDays: offsetDays ?? 0 });
  }, [trigger.data, form]);

  const save = useListMutation({
    mutationFn: (values: FollowTrigger) =>
      studyApi.saveFollowTrigger({
        studyId: study.id,
        enabled: values.enabled,
        crfId: values.crfId ?? null,
        itemName: values.itemName ?? null,
        offsetDays: values.offsetDays ?? 0,
      }),
    invalidate: [queryKeys.studyConfig.follow(study.id)],
  });

  return (
    <SettingsSection
      title={STUDY_CONFIG_TEXT.follow}
      hint={STUDY_CONFIG_TEXT.followHint}
      form={form}
      name="study-follow"
      loading={trigger.isLoading}
      save={save}
      switchLabel={STUDY_CONFIG_TEXT.followEnabled}
      switchDisabled={!can(PERM)}
    >
      <Form.Item
        label={STUDY_CONFIG_TEXT.followCrf}
        name="crfId"
        rules={[{ required: Boolean(enabled), message: STUDY_CONFIG_TEXT.followCrfRequired }]}
      >
        <Select
          allowClear
          disabled={!enabled}
          loading={crfs.isLoading}
          style={{ width: 320 }}
          placeholder={COMMON_TEXT.selectPlaceholder}
          options={(crfs.data ?? []).map((crf) => ({ value: crf.id, label: crf.title }))}
          onChange={() => form.setFieldValue('itemName', null)}
        />
      </Form.Item>
      <Form.Item
        label={STUDY_CONFIG_TEXT.followItem}
        name="itemName"
        rules={[{ required: Boolean(enabled), message: STUDY_CONFIG_TEXT.followItemRequired }]}
      >
        <Select
          allowClear
          disabled={!enabled || typeof crfId !== 'number'}
          loading={detail.isLoading && typeof crfId === 'number'}
          style={{ width: 320 }}
          placeholder={COMMON_TEXT.selectPlaceholder}
          options={items.map((item) => ({ value: item.name, label: `${item.title}（${item.name}）` }))}
        />
      </Form.Item>
      <Form.Item label={STUDY_CONFIG_TEXT.offsetDays}>
        <Space>
          <Form.Item name="offsetDays" noStyle>
            <InputNumber
              min={0}
              max={3650}
              precision={0}
              disabled={!enabled}
              style={{ width: 120 }}
              aria-label={STUDY_CONFIG_TEXT.offsetDays}
            />
          </Form.Item>
          <span>{STUDY_CONFIG_TEXT.days}</span>
        </Space>
      </Form.Item>
    </SettingsSection>
  );
}

/** 功能设置: queries, signatures, automatic subject codes, follow-up triggers and the spine diagnosis bands. */
export function FeaturesPanel({ study }: { study: Study }) {
  return (
    <>
      <DoubtSwitch study={study} />
      <SignSection study={study} />
      <SerialNumberSection study={study} />
      <FollowTriggerSection study={study} />
      <SpineBandSetSection study={study} />
    </>
  );
}
