import { useEffect, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import type { StudyButton } from '@ecrf/core';
import { queryKeys } from '../../../api/query-keys';
import { Alert, App, Button, Descriptions, Empty, Form, Input, Modal, Space, Spin, Tag, Timeline } from 'antd';
import { ApiError } from '../../../api/request';
import { DOUBT_STATE, DOUBT_TYPE, doubtApi, type Doubt, type DoubtDetail } from '../../../api/doubt.api';
import { COMMON_TEXT } from '../../../locales/common.zh-CN';
import { DOUBT_TEXT } from '../../../locales/doubt.zh-CN';
import './doubt-dialog.css';
import { formatDate } from '../../../utils/format-date';

const t = DOUBT_TEXT;

/** QRY-13: the history is read again every minute while the dialog is open. */
export const DOUBT_REFRESH_MS = 60_000;

export const DOUBT_BUTTONS = {
  open: 'study.doubt.open',
  reply: 'study.doubt.reply',
  close: 'study.doubt.close',
} as const;

/** The item a new query is about, shown read-only (QRY-09). */
export interface DoubtTarget {
  crfDataRecordId: number | null;
  itemName: string;
  itemTitle: string;
  groupName?: string | null;
  groupIndex?: number | null;
  /** The item's saved value as a person reads it. */
  value: string;
}

export type DoubtDialogMode = { kind: 'start'; target: DoubtTarget } | { kind: 'history'; doubtId: number };

export interface DoubtDialogProps {
  mode: DoubtDialogMode | null;
  /** Study buttons the user holds (QRY-11): study.doubt.open, .reply, .close. */
  can: (code: StudyButton) => boolean;
  /** QRY-12: a read-only view hides the reply box. */
  readOnly?: boolean;
  /** Titles and value texts of the query's item, when the form's definition is known. */
  describe?: (doubt: Pick<Doubt, 'itemName' | 'groupName' | 'groupIndex' | 'crfId'>) => {
    title: string;
    format: (value: unknown) => string;
  };
  /** Something changed (opened, replied, closed, re-opened): the page refreshes what shows it. */
  onChanged?: (doubtId: number) => void;
  onClose: () => void;
}

const plain = (value: unknown) =>
  value === undefined || value === null || value === ''
    ? ''
    : typeof value === 'object'
      ? JSON.stringify(value)
      : String(value);

export function DoubtStateTag({ state }: { state: number }) {
  const color = state === DOUBT_STATE.open ? 'red' : state === DOUBT_STATE.replied ? 'gold' : 'default';
  return <Tag color={color}>{t.states[state] ?? state}</Tag>;
}

export function DoubtTypeTag({ type }: { type: number }) {
  return <Tag color={type === DOUBT_TYPE.system ? 'blue' : 'purple'}>{t.types[type] ?? type}</Tag>;
}

type Action = 'start' | 'reply' | 'close' | 'reopen';

const REQUIRED: Record<Action, string> = {
  start: t.contentRequired,
  reply: t.replyRequired,
  close: t.closeRequired,
  reopen: t.contentRequired,
};

const messageOf = (error: unknown) => (error instanceof ApiError ? error.message : COMMON_TEXT.loadFailed);

/**
 * The data-query dialog (forms §2, §4): start mode raises a query on one item of a saved record;
 * history mode shows the thread with reply, close and re-open, each behind its study button and
 * each with its own box (回复内容, 关闭原因) and confirmation, so closing the query can never be
 * mistaken for dismissing the dialog (取消 or ×).
 */
export function DoubtDialog({ mode, can, readOnly = false, describe, onChanged, onClose }: DoubtDialogProps) {
  const { message } = App.useApp();
  const open = mode !== null;
  const [doubtId, setDoubtId] = useState<number | null>(mode?.kind === 'history' ? mode.doubtId : null);
  const [text, setText] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState<Action | null>(null);
  /** The thread action being written (its own box and confirmation); null shows the action buttons. */
  const [acting, setActing] = useState<Exclude<Action, 'start'> | null>(null);
  const [ticking, setTicking] = useState(true);

  // A dialog opened for another query (or closed and opened again) starts afresh.
  const modeKey = mode
    ? mode.kind === 'history'
      ? `h${mode.doubtId}`
      : `s${mode.target.crfDataRecordId}:${mode.target.itemName}`
    : '';
  const [shownKey, setShownKey] = useState(modeKey);
  if (shownKey !== modeKey) {
    setShownKey(modeKey);
    setDoubtId(mode?.kind === 'history' ? mode.doubtId : null);
    setText('');
    setError(null);
    setActing(null);
    setTicking(true);
  }

  const query = useQuery({
    queryKey: queryKeys.doubt.detail(doubtId),
    queryFn: () => doubtApi.get(doubtId!).then((res) => res.data),
    enabled: open && doubtId !== null,
  });
  const { refetch } = query;

  // QRY-13/QRY-14: while open the history refreshes every minute; a failed start stops the timer.
  useEffect(() => {
    if (!open || !ticking) return;
    const timer = setInterval(() => {
      if (doubtId !== null) void refetch();
    }, DOUBT_REFRESH_MS);
    return () => clearInterval(timer);
  }, [open, ticking, doubtId, refetch]);

  const run = async (action: Action) => {
    if (!text.trim()) {
      setError(REQUIRED[action]);
      return;
    }
    setError(null);
    setBusy(action);
    try {
      if (action === 'start') {
        const target = (mode as { kind: 'start'; target: DoubtTarget }).target;
        if (!target.crfDataRecordId) {
          void message.warning(t.saveFirst);
          setTicking(false);
          return;
        }
        const res = await doubtApi.open({
          crfDataRecordId: target.crfDataRecordId,
          itemName: target.itemName,
          groupName: target.groupName ?? null,
          groupIndex: target.groupIndex ?? null,
          doubtDescription: text.trim(),
        });
        void message.success(t.opened);
        setDoubtId(res.data.doubtId);
        onChanged?.(res.data.doubtId);
      } else if (doubtId !== null) {
        if (action === 'reply') await doubtApi.reply(doubtId, text.trim());
        if (action === 'close') await doubtApi.close(doubtId, text.trim());
        if (action === 'reopen') await doubtApi.reopen(doubtId, text.trim());
        void message.success(action === 'reply' ? t.replied : action === 'close' ? t.closed : t.opened);
        await refetch();
        onChanged?.(doubtId);
      }
      setText('');
      setActing(null);
    } catch (failure) {
      if (action === 'start') setTicking(false);
      void message.error(messageOf(failure));
    } finally {
      setBusy(null);
    }
  };

  const box = (label: string) => (
    <Form.Item label={label} required validateStatus={error ? 'error' : undefined} help={error}>
      <Input.TextArea
        aria-label={label}
        placeholder={t.placeholder}
        value={text}
        maxLength={1000}
        showCount
        autoSize={{ minRows: 3, maxRows: 6 }}
        onChange={(event) => {
          setText(event.target.value);
          if (error && event.target.value.trim()) setError(null);
        }}
      />
    </Form.Item>
  );

  let body;
  let footer;
  if (mode?.kind === 'start' && doubtId === null) {
    const target = mode.target;
    body = (
      <Form layout="vertical">
        <Form.Item label={t.item}>
          <Input aria-label={t.item} readOnly value={target.itemTitle} />
        </Form.Item>
        <Form.Item label={t.currentValue}>
          <Input aria-label={t.currentValue} readOnly value={target.value} />
        </Form.Item>
        {box(t.content)}
      </Form>
    );
    footer = [
      <Button key="cancel" onClick={onClose}>
        {COMMON_TEXT.cancel}
      </Button>,
      <Button
        key="ok"
        type="primary"
        loading={busy === 'start'}
        disabled={!can(DOUBT_BUTTONS.open)}
        onClick={() => void run('start')}
      >
        {t.startTitle}
      </Button>,
    ];
  } else {
    const doubt: DoubtDetail | undefined = query.data;
    const info = doubt && describe ? describe(doubt) : null;
    const format = info?.format ?? plain;
    // The server's words first (title of the record's CRF version, labels, unit, file names).
    const valueText = (text: string | undefined, raw: unknown) => text ?? format(raw);
    const closed = doubt?.optionType === DOUBT_STATE.closed;
    const canReply = !readOnly && can(DOUBT_BUTTONS.reply) && !closed;
    const canClose = can(DOUBT_BUTTONS.close) && !closed;
    const canReopen = can(DOUBT_BUTTONS.open) && doubt?.optionType === DOUBT_STATE.replied;
    const actions = {
      reply: { allowed: canReply, label: t.replyLabel, confirm: t.replyConfirm, title: t.reply },
      close: { allowed: canClose, label: t.closeLabel, confirm: t.closeConfirm, title: t.close },
      reopen: { allowed: canReopen, label: t.reopenLabel, confirm: t.reopenConfirm, title: t.reopen },
    } as const;
    const current = acting && actions[acting].allowed ? acting : null;
    const choose = (action: Exclude<Action, 'start'>) => {
      setActing(action);
      setText('');
      setError(null);
    };
    body = !doubt ? (
      <Spin />
    ) : (
      <>
        <Descriptions size="small" column={2} bordered className="doubt-head">
          <Descriptions.Item label={t.item} span={2}>
            {doubt.groupName ? `${t.groupRow(doubt.groupTitle ?? doubt.groupName, doubt.groupIndex ?? 0)} · ` : ''}
            {doubt.itemTitle ?? info?.title ?? doubt.itemName}
          </Descriptions.Item>
          {doubt.crfTitle !== undefined && <Descriptions.Item label={t.form}>{doubt.crfTitle}</Descriptions.Item>}
          {doubt.stageName !== undefined && (
            <Descriptions.Item label={t.stage}>{doubt.stageName || '—'}</Descriptions.Item>
          )}
          <Descriptions.Item label={t.itemValue}>{valueText(doubt.itemValueText, doubt.itemValue)}</Descriptions.Item>
          <Descriptions.Item label={t.currentValue}>
            {valueText(doubt.currentValueText, doubt.currentValue)}
          </Descriptions.Item>
          <Descriptions.Item label={t.status}>
            <DoubtStateTag state={doubt.optionType} />
          </Descriptions.Item>
          <Descriptions.Item label={t.type}>
            <DoubtTypeTag type={doubt.doubtType} />
          </Descriptions.Item>
          <Descriptions.Item label={t.user}>{doubt.userName}</Descriptions.Item>
          <Descriptions.Item label={t.time}>{formatDate(doubt.createDate)}</Descriptions.Item>
        </Descriptions>
        {doubt.messages.length === 0 ? (
          <Empty />
        ) : (
          <Timeline
            className="doubt-thread"
            items={doubt.messages.map((m) => ({
              key: m.id,
              color: m.kind === 'close' || m.kind === 'auto_close' ? 'gray' : m.kind === 'reply' ? 'green' : 'red',
              content: (
                <div className="doubt-message" data-kind={m.kind}>
                  <div className="doubt-message-head">
                    <b>{t.kinds[m.kind] ?? m.kind}</b>
                    <span>{m.userName}</span>
                    <span className="doubt-message-time">{formatDate(m.createDate)}</span>
                  </div>
                  <div className="doubt-message-content">{m.content}</div>
                  {m.itemValue !== null && m.itemValue !== undefined && m.itemValue !== '' && (
                    <div className="doubt-message-value">{t.valueAtTime(valueText(m.itemValueText, m.itemValue))}</div>
                  )}
                </div>
              ),
            }))}
          />
        )}
        {current ? (
          <section className="doubt-action" data-action={current} aria-label={actions[current].title}>
            <div className="doubt-action-title">{actions[current].title}</div>
            {current === 'close' && <Alert type="warning" showIcon className="doubt-action-hint" title={t.closeHint} />}
            <Form layout="vertical">{box(actions[current].label)}</Form>
            <Space className="doubt-action-buttons">
              <Button onClick={() => setActing(null)} disabled={busy !== null}>
                {t.back}
              </Button>
              <Button
                type="primary"
                danger={current === 'close'}
                loading={busy === current}
                onClick={() => void run(current)}
              >
                {actions[current].confirm}
              </Button>
            </Space>
          </section>
        ) : (
          (canReply || canClose || canReopen) && (
            <Space className="doubt-actions" wrap>
              {canReply && (
                <Button type="primary" onClick={() => choose('reply')}>
                  {t.reply}
                </Button>
              )}
              {canReopen && <Button onClick={() => choose('reopen')}>{t.reopen}</Button>}
              {canClose && (
                <Button danger onClick={() => choose('close')}>
                  {t.close}
                </Button>
              )}
            </Space>
          )
        )}
      </>
    );
    // Dismissing the dialog is 取消 (or ×) only: no button beside the actions reads 关闭.
    footer = <Button onClick={onClose}>{COMMON_TEXT.cancel}</Button>;
  }

  return (
    <Modal
      open={open}
      title={mode?.kind === 'start' && doubtId === null ? t.startTitle : t.historyTitle}
      width={680}
      onCancel={onClose}
      footer={footer}
      destroyOnHidden
      mask={{ closable: false }}
    >
      {body}
    </Modal>
  );
}
