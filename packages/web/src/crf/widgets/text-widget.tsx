import { TextInputBase } from './text-input-base';
import type { ControlProps } from './widget-types';

/** 文本: free text on one line; its length bounds and pattern are the engine's. */
export function TextWidget(props: ControlProps) {
  return <TextInputBase {...props} />;
}
