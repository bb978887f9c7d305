import { CrfChildren } from '../crf-node';
import type { BlockProps } from './widget-types';
import { titleOf } from './widget-utils';

/** 分区: a titled block; its crfCols sets how many items share a row (forms §9). */
export function SectionWidget({ node, crfCols }: BlockProps) {
  const title = titleOf(node);
  return (
    <section className="crf-section" aria-label={title || undefined}>
      {title && <h3 className="crf-section-title">{title}</h3>}
      {node.option.description && <div className="crf-block-desc">{node.option.description}</div>}
      <CrfChildren nodes={node.children} crfCols={node.option.crfCols ?? crfCols} />
    </section>
  );
}
