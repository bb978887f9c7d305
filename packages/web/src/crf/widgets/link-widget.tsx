import { LinkOutlined } from '@ant-design/icons';
import type { BlockProps } from './widget-types';
import { safeHref } from '../../utils/safe-href';
import { titleOf } from './widget-utils';

/** 链接: opens option.url in a new window; an address that isn't web, mail or relative is shown as text. */
export function LinkWidget({ node }: Pick<BlockProps, 'node'>) {
  const href = safeHref(node.option.url);
  const title = titleOf(node) || node.option.url || '';
  return (
    <div className="crf-link">
      <LinkOutlined />
      {href ? (
        <a href={href} target="_blank" rel="noreferrer">
          {title}
        </a>
      ) : (
        <span>{title}</span>
      )}
      {node.option.description && <div className="crf-block-desc">{node.option.description}</div>}
    </div>
  );
}
