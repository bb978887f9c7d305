import { PRIMARY_COLOR, PRIMARY_TEXT_COLOR } from '../../theme';
import type { BlockProps } from './widget-types';
import { parseStyleText, titleOf } from './widget-utils';

/**
 * 标题: text only; a showStyle holding CSS declarations styles it (forms §3). The product colour its example
 * writes (color: #099dad) is text here, so it takes the theme's text shade of it (4.5:1 on white).
 */
export function TitleWidget({ node }: Pick<BlockProps, 'node'>) {
  const style = parseStyleText(node.option.showStyle);
  if (typeof style?.color === 'string' && style.color.toLowerCase() === PRIMARY_COLOR) style.color = PRIMARY_TEXT_COLOR;
  return (
    <div className="crf-title" style={style}>
      {titleOf(node)}
      {node.option.description && <div className="crf-block-desc">{node.option.description}</div>}
    </div>
  );
}
