import { useEffect } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { App, Button, Card, Checkbox, Form, Input, Result, Spin, Switch, Typography } from 'antd';
import { hasPermission, MSG } from '@ecrf/core';
import { queryKeys } from '../../../api/query-keys';
import { bindUrl, wechatApi } from '../../../api/wechat.api';
import { WECHAT_TEXT } from '../../../locales/wechat.zh-CN';
import { useSession } from '../../../stores/session.store';
import { QrImage } from '../../crf/components/qr-image';
import { useProjectStudyId } from '../use-project-study';
import './wechat.css';

interface SettingsForm {
  bindEnabled: boolean;
  appId: string;
  welcome: string;
  proCrfIds: number[];
}

/**
 * 公众号 (/project/{id}/weChat): the study's binding QR code, which opens the patients' binding page, and the
 * binding settings: binding open or not, the WeChat official account's app id, the greeting, and which CRFs
 * patients fill themselves (patient-reported). Changing settings needs study:config (the server checks it).
 */
export default function WeChatPage() {
  const studyId = useProjectStudyId();
  const permissions = useSession((s) => s.permissions);
  const mayConfigure = hasPermission(permissions, 'study:config');
  const { message } = App.useApp();
  const client = useQueryClient();
  const [form] = Form.useForm<SettingsForm>();
  const settings = useQuery({
    queryKey: queryKeys.wechat.settings(studyId),
    enabled: studyId !== null,
    queryFn: () => wechatApi.settings(studyId!).then((res) => res.data),
  });
  useEffect(() => {
    if (settings.data) {
      const { bindEnabled, appId, welcome, proCrfIds } = settings.data;
      form.setFieldsValue({ bindEnabled, appId, welcome, proCrfIds });
    }
  }, [settings.data, form]);
  const save = useMutation({
    mutationFn: (values: SettingsForm) => wechatApi.saveSettings({ studyId: studyId!, ...values }),
    onSuccess: (res) => {
      client.setQueryData(queryKeys.wechat.settings(studyId), res.data);
      void message.success(WECHAT_TEXT.saved);
    },
  });

  if (studyId === null || settings.isError) {
    return (
      <div className="page-card">
        <Result status="warning" title={MSG.forbidden} />
      </div>
    );
  }
  if (!settings.data) {
    return (
      <div className="page-card">
        <Spin style={{ display: 'block', margin: '48px auto' }} />
      </div>
    );
  }
  const url = bindUrl(settings.data.bindPath);
  return (
    <div className="page-card wechat-page">
      <h2 className="page-title">{WECHAT_TEXT.settingsTitle}</h2>
      <div className="wechat-columns">
        <Card title={WECHAT_TEXT.qrTitle} className="wechat-qr-card">
          <QrImage text={url} size={180} margin={2} alt={WECHAT_TEXT.qrAlt} />
          <Typography.Paragraph type="secondary">{WECHAT_TEXT.qrHint}</Typography.Paragraph>
          <Typography.Paragraph copyable className="wechat-url" data-testid="bind-url">
            {url}
          </Typography.Paragraph>
        </Card>
        <Card title={WECHAT_TEXT.settingsTitle} className="wechat-settings-card">
          <Form<SettingsForm>
            form={form}
            layout="vertical"
            disabled={!mayConfigure}
            onFinish={(values) => save.mutate({ ...values, appId: values.appId ?? '', welcome: values.welcome ?? '' })}
          >
            <Form.Item name="bindEnabled" label={WECHAT_TEXT.bindEnabled} valuePropName="checked">
              <Switch />
            </Form.Item>
            <Form.Item
              name="appId"
              label={WECHAT_TEXT.appId}
              extra={WECHAT_TEXT.appIdHint}
              rules={[{ pattern: /^(wx[0-9a-f]{16})?$/, message: WECHAT_TEXT.appIdInvalid }]}
            >
              <Input maxLength={40} allowClear />
            </Form.Item>
            <Form.Item name="welcome" label={WECHAT_TEXT.welcome}>
              <Input.TextArea maxLength={500} rows={3} showCount />
            </Form.Item>
            <Form.Item name="proCrfIds" label={WECHAT_TEXT.proCrfs} extra={WECHAT_TEXT.proCrfsHint}>
              <Checkbox.Group
                className="wechat-crfs"
                options={settings.data.crfs.map((crf) => ({ value: crf.id, label: crf.title }))}
              />
            </Form.Item>
            <Button type="primary" htmlType="submit" loading={save.isPending}>
              {WECHAT_TEXT.save}
            </Button>
          </Form>
        </Card>
      </div>
    </div>
  );
}
