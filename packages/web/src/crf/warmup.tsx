import { startTransition, useEffect, useState } from 'react';
import { Button, Checkbox, Col, DatePicker, Input, Radio, Row, Select, Space, Tag, Tooltip } from 'antd';

const CHOICES = [{ label: '-', value: '-' }];

/**
 * antd writes each component's CSS the first time one renders: the grid's alone costs about 100 ms on a slow
 * machine, the date picker's half that. The CRF page renders these widgets once, hidden, in idle time while its
 * menu and record load, so that the form's first render after its data arrives does not pay for them. Kept
 * mounted, hidden and inert (antd drops the CSS of components no longer rendered). Only where the browser has
 * idle callbacks: a test's DOM gets nothing.
 */
export function CrfWarmup() {
  const [on, setOn] = useState(false);
  useEffect(() => {
    if (typeof window.requestIdleCallback !== 'function') return;
    const id = window.requestIdleCallback(() => startTransition(() => setOn(true)), { timeout: 1000 });
    return () => window.cancelIdleCallback(id);
  }, []);
  if (!on) return null;
  return (
    <div className="crf-warmup" hidden aria-hidden="true" inert>
      <Row gutter={[24, 4]}>
        <Col span={24}>
          <Space>
            <Input tabIndex={-1} />
            <Input.TextArea tabIndex={-1} autoSize />
            <Radio.Group options={CHOICES} />
            <Checkbox.Group options={CHOICES} />
            <Select tabIndex={-1} options={CHOICES} />
            <DatePicker tabIndex={-1} />
            <Tag>-</Tag>
            <Tooltip title="-">
              <Button tabIndex={-1} size="small" type="link">
                -
              </Button>
            </Tooltip>
          </Space>
        </Col>
      </Row>
    </div>
  );
}
