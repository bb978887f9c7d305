import { Descriptions, Modal } from 'antd';
import type { OperLog } from '../../../../api/monitor.api';
import { COMMON_TEXT } from '../../../../locales/common.zh-CN';
import { OPERLOG_TEXT } from '../../../../locales/operlog.zh-CN';
import { formatDate } from '../../../../utils/format-date';
import { businessTypeLabel } from '../operlog-labels';

export function OperLogDetailDialog({ log, onClose }: { log: OperLog | null; onClose: () => void }) {
  return (
    <Modal open={log !== null} title={OPERLOG_TEXT.detailTitle} onCancel={onClose} footer={null} width={760}>
      {log && (
        <Descriptions column={2} bordered size="small" styles={{ label: { width: 110, whiteSpace: 'nowrap' } }}>
          <Descriptions.Item label={OPERLOG_TEXT.module}>{log.title}</Descriptions.Item>
          <Descriptions.Item label={OPERLOG_TEXT.businessType}>{businessTypeLabel(log.businessType)}</Descriptions.Item>
          <Descriptions.Item label={OPERLOG_TEXT.operName}>{log.operName}</Descriptions.Item>
          <Descriptions.Item label={OPERLOG_TEXT.operIp}>{log.operIp}</Descriptions.Item>
          <Descriptions.Item label={OPERLOG_TEXT.requestMethod}>{log.requestMethod}</Descriptions.Item>
          <Descriptions.Item label={OPERLOG_TEXT.operUrl}>{log.operUrl}</Descriptions.Item>
          <Descriptions.Item label={OPERLOG_TEXT.method} span={2}>
            {log.method}
          </Descriptions.Item>
          <Descriptions.Item label={OPERLOG_TEXT.target}>{log.target ?? ''}</Descriptions.Item>
          <Descriptions.Item label={OPERLOG_TEXT.resultCode}>{log.resultCode ?? ''}</Descriptions.Item>
          <Descriptions.Item label={COMMON_TEXT.status}>
            {log.status === 0 ? OPERLOG_TEXT.success : OPERLOG_TEXT.failure}
          </Descriptions.Item>
          <Descriptions.Item label={OPERLOG_TEXT.costTime}>{log.costTime ?? ''}</Descriptions.Item>
          <Descriptions.Item label={OPERLOG_TEXT.operTime} span={2}>
            {formatDate(log.operTime)}
          </Descriptions.Item>
          {log.errorMsg && (
            <Descriptions.Item label={OPERLOG_TEXT.errorMsg} span={2}>
              {log.errorMsg}
            </Descriptions.Item>
          )}
        </Descriptions>
      )}
    </Modal>
  );
}
