import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { queryKeys } from '../../../api/query-keys';
import { Alert, App, Descriptions, Form, Input, List, Modal, Tag } from 'antd';
import { crfRecordApi } from '../../../api/crf.api';
import { ApiError } from '../../../api/request';
import { COMMON_TEXT } from '../../../locales/common.zh-CN';
import { CRF_PAGE_TEXT } from '../../../locales/crf-page.zh-CN';
import { formatDate } from '../../../utils/format-date';

const t = CRF_PAGE_TEXT;

/**
 * The investigator's electronic signature over the casebook (SUBJ-23): the password is entered
 * again; the current signature shows as valid, or 已失效 once data changed after it.
 */
export function SignDialog({
  open,
  subjectRecordId,
  studyId,
  canSign,
  onClose,
}: {
  open: boolean;
  subjectRecordId: number;
  studyId: number;
  canSign: boolean;
  onClose: () => void;
}) {
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const signatures = useQuery({
    queryKey: queryKeys.crfRecord.signatures(subjectRecordId),
    queryFn: () => crfRecordApi.signatures(subjectRecordId).then((res) => res.data),
    enabled: open,
  });
  const config = useQuery({
    queryKey: queryKeys.crfRecord.signConfig(studyId),
    queryFn: () => crfRecordApi.signConfig(studyId).then((res) => res.data),
    enabled: open,
  });
  const current = signatures.data?.[0] ?? null;

  const sign = async () => {
    if (!password) {
      setError(t.signPasswordRequired);
      return;
    }
    setBusy(true);
    try {
      const res = await crfRecordApi.sign({ subjectRecordId, password });
      void message.success(res.msg || t.signOk);
      setPassword('');
      setError(null);
      await queryClient.invalidateQueries({ queryKey: queryKeys.crfRecord.signatures(subjectRecordId) });
      await queryClient.invalidateQueries({ queryKey: queryKeys.crfRecord.detailsOf(subjectRecordId) });
    } catch (failure) {
      setError(failure instanceof ApiError ? failure.message : COMMON_TEXT.loadFailed);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Modal
      open={open}
      title={t.signTitle}
      onCancel={onClose}
      onOk={canSign ? () => void sign() : onClose}
      okText={canSign ? t.sign : COMMON_TEXT.close}
      cancelText={COMMON_TEXT.cancel}
      okButtonProps={{ loading: busy }}
      destroyOnHidden
      afterClose={() => {
        setPassword('');
        setError(null);
      }}
    >
      <Descriptions column={1} size="small" bordered>
        <Descriptions.Item label={t.signCurrent}>
          {current ? (
            <span className="crf-sign-current">
              {current.valid ? <Tag color="success">{t.signValid}</Tag> : <Tag color="error">{t.signInvalid}</Tag>}
              {t.signBy(current.signer, formatDate(current.signedAt))}
            </span>
          ) : (
            t.signNone
          )}
        </Descriptions.Item>
        {current && !current.valid && current.invalidatedReason && (
          <Descriptions.Item label={t.signInvalid}>
            {formatDate(current.invalidatedAt)} {current.invalidatedReason}
          </Descriptions.Item>
        )}
        <Descriptions.Item label={t.signMeaning}>{config.data?.meaning ?? ''}</Descriptions.Item>
      </Descriptions>
      {canSign && (
        <Form layout="vertical" style={{ marginTop: 16 }} onFinish={() => void sign()}>
          <Alert type="info" showIcon title={t.signHint} style={{ marginBottom: 12 }} />
          <Form.Item label={t.signPassword} required validateStatus={error ? 'error' : undefined} help={error}>
            <Input.Password
              aria-label={t.signPassword}
              autoComplete="current-password"
              value={password}
              onChange={(event) => {
                setPassword(event.target.value);
                if (error) setError(null);
              }}
              onPressEnter={() => void sign()}
            />
          </Form.Item>
        </Form>
      )}
      {(signatures.data?.length ?? 0) > 1 && (
        <List
          size="small"
          header={t.signHistory}
          dataSource={signatures.data!.slice(1)}
          renderItem={(s) => (
            <List.Item>
              {s.valid ? <Tag color="success">{t.signValid}</Tag> : <Tag>{t.signInvalid}</Tag>}
              {t.signBy(s.signer, formatDate(s.signedAt))}
            </List.Item>
          )}
        />
      )}
    </Modal>
  );
}
