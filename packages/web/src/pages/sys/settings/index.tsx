import { useEffect } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { App, Button, Form, InputNumber, Table } from 'antd';
import { securitySettingsSchema, type SecuritySetting } from '@ecrf/core';
import { queryKeys } from '../../../api/query-keys';
import { ApiError } from '../../../api/request';
import {
  securitySettingsApi,
  type SecuritySettingChange,
  type SecuritySettings,
} from '../../../api/security-settings.api';
import { SECURITY_TEXT as T } from '../../../locales/security.zh-CN';
import { formatDate } from '../../../utils/format-date';
import { zodRule } from '../../../utils/zod-rule';

const FIELDS: Array<{ name: SecuritySetting; label: string; help: string; max: number; min: number }> = [
  { name: 'passwordMaxAgeDays', label: T.passwordMaxAgeDays, help: T.passwordMaxAgeDaysHelp, min: 0, max: 3650 },
  { name: 'passwordHistoryCount', label: T.passwordHistoryCount, help: T.passwordHistoryCountHelp, min: 0, max: 24 },
  { name: 'idleTimeoutMinutes', label: T.idleTimeoutMinutes, help: T.idleTimeoutMinutesHelp, min: 1, max: 1440 },
];

/** 系统设置 (issue 36): the account and session policy, with the record of its changes (audited on the server). */
export default function SystemSettingsPage() {
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const [form] = Form.useForm<SecuritySettings>();

  const settings = useQuery({
    queryKey: queryKeys.sysConfig.security(),
    queryFn: () => securitySettingsApi.get().then((res) => res.data),
  });
  const history = useQuery({
    queryKey: queryKeys.sysConfig.securityHistory(),
    queryFn: () => securitySettingsApi.history().then((res) => res.data),
  });

  useEffect(() => {
    if (settings.data) form.setFieldsValue(settings.data);
  }, [settings.data, form]);

  const save = useMutation({
    mutationFn: securitySettingsApi.save,
    onSuccess: (res) => {
      void message.success(res.msg);
      // The idle limit reaches this browser's timer with the user information.
      void queryClient.invalidateQueries({ queryKey: queryKeys.sysConfig.security() });
      void queryClient.invalidateQueries({ queryKey: queryKeys.account.info() });
    },
    onError: (error) => void message.error(error instanceof ApiError ? error.message : String(error)),
  });

  const submit = async () => {
    const values = await form.validateFields().catch(() => null);
    if (values) save.mutate(values);
  };

  return (
    <div className="page-card">
      <h2 className="page-title">{T.title}</h2>
      <h3>{T.sectionPolicy}</h3>
      <Form
        form={form}
        name="security-settings"
        labelCol={{ flex: '220px' }}
        wrapperCol={{ flex: 1 }}
        disabled={settings.isLoading}
        style={{ maxWidth: 760 }}
        onFinish={() => void submit()}
      >
        {FIELDS.map((field) => (
          <Form.Item
            key={field.name}
            label={field.label}
            name={field.name}
            extra={field.help}
            required
            validateFirst
            rules={[{ required: true, message: T.required }, zodRule(securitySettingsSchema.shape[field.name])]}
          >
            <InputNumber min={field.min} max={field.max} precision={0} style={{ width: 160 }} />
          </Form.Item>
        ))}
        <Form.Item label=" " colon={false}>
          <Button type="primary" htmlType="submit" loading={save.isPending}>
            {T.save}
          </Button>
        </Form.Item>
      </Form>
      <h3>{T.history}</h3>
      <Table<SecuritySettingChange>
        rowKey="id"
        size="small"
        loading={history.isLoading}
        dataSource={history.data ?? []}
        pagination={false}
        columns={[
          { title: T.historySetting, dataIndex: 'name' },
          { title: T.historyOld, dataIndex: 'oldValue', width: 100 },
          { title: T.historyNew, dataIndex: 'newValue', width: 100 },
          { title: T.historyUser, dataIndex: 'userName', width: 200 },
          {
            title: T.historyTime,
            dataIndex: 'createTime',
            width: 180,
            render: (value: string) => formatDate(value),
          },
        ]}
      />
    </div>
  );
}
