import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import {
  Alert,
  Button,
  Checkbox,
  Descriptions,
  Form,
  Input,
  InputNumber,
  Radio,
  Space,
  Spin,
  Switch,
  TimePicker,
} from 'antd';
import dayjs from 'dayjs';
import {
  DEFAULT_MESSAGE_TEMPLATES,
  MESSAGE_CHANNEL_LABELS,
  MESSAGE_CHANNELS,
  MESSAGE_KIND_LABELS,
  MESSAGE_KINDS,
  MESSAGE_VARIABLES,
  messageRulesSchema,
  renderMessage,
  templateProblems,
  type MessageKind,
  type MessageRules,
} from '@ecrf/core';
import { messageKeys, messagesApi } from '../../../../api/messages.api';
import type { Study } from '../../../../api/study.api';
import { Denied } from '../../../../components/permission';
import { useListMutation } from '../../../../components/table-page';
import { MESSAGES_TEXT as t } from '../../../../locales/messages.zh-CN';
import { useSession } from '../../../../stores/session.store';
import { canInStudy } from '../../../project/study-access';
import { Section } from './section';

/**
 * 项目配置 · 患者提醒 (issue 38): when the study reminds its patients, on which channel, in which words and outside
 * which quiet hours. Saved whole (PUT, 患者提醒); read-only for members without it.
 */
export function MessageRulesPanel({ study }: { study: Study }) {
  const permissions = useSession((s) => s.permissions);
  const allowed = canInStudy({ permissions, myRole: study.myRole }, 'business.messages');
  const query = useQuery({
    queryKey: messageKeys.rules(study.id),
    queryFn: () => messagesApi.rules(study.id).then((res) => res.data),
  });
  return (
    <Section title={t.tab} hint={t.rulesHint}>
      {query.data ? (
        <RulesEditor key={query.dataUpdatedAt} study={study} rules={query.data} allowed={allowed} />
      ) : (
        <Spin />
      )}
    </Section>
  );
}

const hhmm = (value: string) => dayjs(`2000-01-01T${value}:00`);

function RulesEditor({ study, rules, allowed }: { study: Study; rules: MessageRules; allowed: boolean }) {
  const [draft, setDraft] = useState<MessageRules>(rules);
  const [problem, setProblem] = useState<string | null>(null);
  const save = useListMutation({
    mutationFn: (next: MessageRules) => messagesApi.saveRules(study.id, next),
    invalidate: [messageKeys.rules(study.id)],
  });
  const change = (patch: Partial<MessageRules>) => {
    setProblem(null);
    setDraft((d) => ({ ...d, ...patch }));
  };
  const setTemplate = (kind: MessageKind, text: string) => {
    const templates = { ...draft.templates };
    if (text === '') delete templates[kind];
    else templates[kind] = text;
    change({ templates });
  };
  const submit = () => {
    const templates = Object.fromEntries(
      Object.entries(draft.templates).filter(([, text]) => text && text.trim() !== ''),
    ) as MessageRules['templates'];
    const checked = messageRulesSchema.safeParse({ ...draft, templates });
    if (!checked.success) {
      setProblem(checked.error.issues[0]?.message ?? null);
      return;
    }
    const wrong = Object.values(checked.data.templates).flatMap((text) => templateProblems(text ?? ''));
    if (wrong.length > 0) {
      setProblem(wrong[0]!);
      return;
    }
    save.mutate(checked.data);
  };
  const disabled = !allowed;

  return (
    <Form layout="horizontal" labelCol={{ flex: '160px' }} style={{ maxWidth: 820 }} disabled={disabled}>
      <Form.Item label={t.enabled}>
        <Switch aria-label={t.enabled} checked={draft.enabled} onChange={(enabled) => change({ enabled })} />
      </Form.Item>
      <Form.Item label={t.channel}>
        <Radio.Group
          aria-label={t.channel}
          value={draft.channel}
          onChange={(e) => change({ channel: e.target.value as MessageRules['channel'] })}
          options={MESSAGE_CHANNELS.map((c) => ({ value: c, label: MESSAGE_CHANNEL_LABELS[c] }))}
        />
      </Form.Item>
      <Form.Item label={t.daysBefore} extra={t.daysBeforeHint}>
        <InputNumber
          aria-label={t.daysBefore}
          min={1}
          max={60}
          precision={0}
          suffix={t.days}
          value={draft.daysBefore}
          onChange={(v) => change({ daysBefore: typeof v === 'number' ? v : null })}
        />
      </Form.Item>
      <Form.Item label={t.remindFirstDay}>
        <Checkbox checked={draft.remindFirstDay} onChange={(e) => change({ remindFirstDay: e.target.checked })}>
          {t.remindFirstDay}
        </Checkbox>
      </Form.Item>
      <Form.Item label={t.remindOverdue}>
        <Checkbox checked={draft.remindOverdue} onChange={(e) => change({ remindOverdue: e.target.checked })}>
          {t.remindOverdue}
        </Checkbox>
      </Form.Item>
      <Form.Item label={t.invitePro}>
        <Checkbox checked={draft.invitePro} onChange={(e) => change({ invitePro: e.target.checked })}>
          {t.invitePro}
        </Checkbox>
      </Form.Item>
      <Form.Item label={t.remindAgainDays} extra={t.remindAgainHint}>
        <InputNumber
          aria-label={t.remindAgainDays}
          min={1}
          max={60}
          precision={0}
          suffix={t.days}
          value={draft.remindAgainDays}
          onChange={(v) => change({ remindAgainDays: typeof v === 'number' ? v : null })}
        />
      </Form.Item>
      <Form.Item label={t.quietHours} extra={`${t.quietHint}${study.timeZone ? `（${study.timeZone}）` : ''}`}>
        <Space>
          <TimePicker
            aria-label={t.quietStart}
            format="HH:mm"
            allowClear={false}
            value={hhmm(draft.quietStart)}
            onChange={(v) => v && change({ quietStart: v.format('HH:mm') })}
          />
          <span>—</span>
          <TimePicker
            aria-label={t.quietEnd}
            format="HH:mm"
            allowClear={false}
            value={hhmm(draft.quietEnd)}
            onChange={(v) => v && change({ quietEnd: v.format('HH:mm') })}
          />
        </Space>
      </Form.Item>
      <Form.Item label={t.variables}>
        <Descriptions size="small" column={2} bordered>
          {Object.entries(MESSAGE_VARIABLES).map(([name, meaning]) => (
            <Descriptions.Item key={name} label={`{${name}}`}>
              {meaning}
            </Descriptions.Item>
          ))}
        </Descriptions>
      </Form.Item>
      {MESSAGE_KINDS.map((kind) => {
        const text = draft.templates[kind] ?? '';
        return (
          <Form.Item key={kind} label={MESSAGE_KIND_LABELS[kind]} extra={t.templateHint}>
            <Input.TextArea
              aria-label={t.templateAria(MESSAGE_KIND_LABELS[kind])}
              rows={2}
              maxLength={300}
              placeholder={DEFAULT_MESSAGE_TEMPLATES[kind]}
              value={text}
              onChange={(e) => setTemplate(kind, e.target.value)}
            />
            <div className="message-preview" aria-label={`${MESSAGE_KIND_LABELS[kind]}${t.preview}`}>
              {t.preview}：{renderMessage(text.trim() || DEFAULT_MESSAGE_TEMPLATES[kind], t.sample)}
            </div>
          </Form.Item>
        );
      })}
      {problem && <Alert type="error" showIcon title={problem} style={{ marginBottom: 12 }} />}
      <Form.Item label=" " colon={false}>
        {allowed ? (
          <Button type="primary" loading={save.isPending} onClick={submit}>
            {t.save}
          </Button>
        ) : (
          <Denied>
            <Button type="primary" disabled style={{ pointerEvents: 'none' }}>
              {t.save}
            </Button>
          </Denied>
        )}
      </Form.Item>
    </Form>
  );
}
