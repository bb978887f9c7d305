import { useState } from 'react';
import { Alert, Button, Descriptions, Tag } from 'antd';
import { RocketOutlined } from '@ant-design/icons';
import type { Study } from '../../../../api/study.api';
import { StudyModeTag } from '../../../../components/test-data-tag';
import { LIFECYCLE_TEXT } from '../../../../locales/lifecycle.zh-CN';
import { useSession } from '../../../../stores/session.store';
import { formatDate } from '../../../../utils/format-date';
import { canInStudy } from '../../../project/study-access';
import { GoLiveDialog } from './golive-dialog';
import { Section } from './section';

/**
 * 测试与上线 (docs/lifecycle.md): whether the study is still in 测试 or went live (and when); holders of 上线
 * (btn:business.study.golive) go live from here through the confirmation dialog.
 */
export function GoLivePanel({ study }: { study: Study }) {
  const permissions = useSession((s) => s.permissions);
  const canGoLive = canInStudy({ permissions, myRole: study.myRole }, 'business.study.golive');
  const [open, setOpen] = useState(false);
  const inTest = study.mode === 'test';
  return (
    <Section title={LIFECYCLE_TEXT.sectionTitle}>
      <Descriptions column={1} size="small" style={{ marginBottom: 12 }}>
        <Descriptions.Item label={LIFECYCLE_TEXT.modeLabel}>
          {inTest ? (
            <StudyModeTag mode={study.mode} />
          ) : (
            <Tag color="green" data-testid="study-live">
              {LIFECYCLE_TEXT.liveOn(formatDate(study.wentLiveAt, 'YYYY-MM-DD'))}
            </Tag>
          )}
        </Descriptions.Item>
        {!inTest && study.wentLiveAt && (
          <Descriptions.Item label={LIFECYCLE_TEXT.wentLiveAt}>{formatDate(study.wentLiveAt)}</Descriptions.Item>
        )}
      </Descriptions>
      <Alert
        type={inTest ? 'warning' : 'success'}
        showIcon
        title={inTest ? LIFECYCLE_TEXT.testHint : LIFECYCLE_TEXT.liveHint}
        style={{ marginBottom: 12 }}
      />
      {inTest &&
        (canGoLive ? (
          <Button type="primary" danger icon={<RocketOutlined aria-hidden />} onClick={() => setOpen(true)}>
            {LIFECYCLE_TEXT.goLive}
          </Button>
        ) : (
          <p className="study-section-hint">{LIFECYCLE_TEXT.noPermission}</p>
        ))}
      <GoLiveDialog study={study} open={open} onClose={() => setOpen(false)} />
    </Section>
  );
}
