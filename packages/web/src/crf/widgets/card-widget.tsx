import { Card } from 'antd';
import { CrfChildren } from '../crf-node';
import type { BlockProps } from './widget-types';
import { titleOf } from './widget-utils';

/** 卡片: a framed block of items. */
export function CardWidget({ node, crfCols }: BlockProps) {
  const title = titleOf(node);
  return (
    <Card size="small" className="crf-card" title={title || undefined}>
      {node.option.description && <div className="crf-block-desc">{node.option.description}</div>}
      <CrfChildren nodes={node.children} crfCols={node.option.crfCols ?? crfCols} />
    </Card>
  );
}
