import { LinkOutlined } from '@ant-design/icons';
import type { BlockProps } from './widget-types';
import { titleOf } from './widget-utils';

/** Only web and relative addresses open; anything else (javascript:, data:) is shown as text. */
export function safeHref(url: string | undefined): string | undefined {
  const text = url?.trim();
  if (!text) return undefined;
  if (/^https?:\/\//i.test(text) || /^\/(?!\/)/.test(text) || !/^[a-z][a-z0-9+.-]*:/i.test(text)) return text;
  return undefined;
}

/** 链接: opens option.url in a new window. */
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
