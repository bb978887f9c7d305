import { CrfChildren } from '../crf-node';
import { MatrixTable, matrixChoices } from './matrix-group';
import type { BlockProps } from './widget-types';
import { titleOf } from './widget-utils';

/**
 * 分组: items that show and hide together, under a light heading. With showStyle table and items
 * that share their choices it is a matrix (one row per item, one column per choice).
 */
export function GroupWidget({ node, crfCols }: BlockProps) {
  const title = titleOf(node);
  const matrix = node.option.showStyle === 'table' ? matrixChoices(node) : null;
  return (
    <div className={`crf-group${matrix ? ' crf-group-matrix' : ''}`} role="group" aria-label={title || undefined}>
      {title && <div className="crf-group-title">{title}</div>}
      {node.option.description && <div className="crf-block-desc">{node.option.description}</div>}
      {matrix ? (
        <MatrixTable node={node} choices={matrix} />
      ) : (
        <CrfChildren nodes={node.children} crfCols={node.option.crfCols ?? crfCols} />
      )}
    </div>
  );
}
