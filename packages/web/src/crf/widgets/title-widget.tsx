import type { BlockProps } from './widget-types';
import { parseStyleText, titleOf } from './widget-utils';

/** 标题: text only; a showStyle holding CSS declarations styles it (forms §3). */
export function TitleWidget({ node }: Pick<BlockProps, 'node'>) {
  return (
    <div className="crf-title" style={parseStyleText(node.option.showStyle)}>
      {titleOf(node)}
      {node.option.description && <div className="crf-block-desc">{node.option.description}</div>}
    </div>
  );
}
