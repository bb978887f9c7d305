import { Descriptions, Modal } from 'antd';
import type { OperLog } from '../../../../api/monitor.api';
import { T } from '../../../../locales/zh-CN';
import { formatDate } from '../../../../utils/format-date';
import { businessTypeLabel } from '../operlog-labels';

export function OperLogDetailDialog({ log, onClose }: { log: OperLog | null; onClose: () => void }) {
  return (
    <Modal open={log !== null} title={T.operlog.detailTitle} onCancel={onClose} footer={null} width={760}>
      {log && (
        <Descriptions column={2} bordered size="small" styles={{ label: { width: 110, whiteSpace: 'nowrap' } }}>
          <Descriptions.Item label={T.operlog.module}>{log.title}</Descriptions.Item>
          <Descriptions.Item label={T.operlog.businessType}>{businessTypeLabel(log.businessType)}</Descriptions.Item>
          <Descriptions.Item label={T.operlog.operName}>{log.operName}</Descriptions.Item>
          <Descriptions.Item label={T.operlog.operIp}>{log.operIp}</Descriptions.Item>
          <Descriptions.Item label={T.operlog.requestMethod}>{log.requestMethod}</Descriptions.Item>
          <Descriptions.Item label={T.operlog.operUrl}>{log.operUrl}</Descriptions.Item>
          <Descriptions.Item label={T.operlog.method} span={2}>
            {log.method}
          </Descriptions.Item>
          <Descriptions.Item label={T.operlog.target}>{log.target ?? ''}</Descriptions.Item>
          <Descriptions.Item label={T.operlog.resultCode}>{log.resultCode ?? ''}</Descriptions.Item>
          <Descriptions.Item label={T.common.status}>
            {log.status === 0 ? T.operlog.success : T.operlog.failure}
          </Descriptions.Item>
          <Descriptions.Item label={T.operlog.costTime}>{log.costTime ?? ''}</Descriptions.Item>
          <Descriptions.Item label={T.operlog.operTime} span={2}>
            {formatDate(log.operTime)}
          </Descriptions.Item>
          {log.errorMsg && (
            <Descriptions.Item label={T.operlog.errorMsg} span={2}>
              {log.errorMsg}
            </Descriptions.Item>
          )}
        </Descriptions>
      )}
    </Modal>
  );
}
