import { CrfChildren } from '../crf-node';
import type { BlockProps } from './widget-types';
import { titleOf } from './widget-utils';

/** 分组: items that show and hide together, under a light heading. */
export function GroupWidget({ node, crfCols }: BlockProps) {
  const title = titleOf(node);
  return (
    <div className="crf-group" role="group" aria-label={title || undefined}>
      {title && <div className="crf-group-title">{title}</div>}
      {node.option.description && <div className="crf-block-desc">{node.option.description}</div>}
      <CrfChildren nodes={node.children} crfCols={node.option.crfCols ?? crfCols} />
    </div>
  );
}
