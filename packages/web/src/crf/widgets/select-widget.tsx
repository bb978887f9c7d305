import { SingleChoice, choiceLook } from './choice-controls';
import type { ControlProps } from './widget-types';
import { asText } from './widget-utils';

/** 下拉单选: a searchable drop-down; showStyle tag shows buttons and list/open the radios. Value: the option value. */
export function SelectWidget({ value, onChange, ...props }: ControlProps) {
  return (
    <SingleChoice
      {...props}
      look={choiceLook(props.node, 'pop')}
      value={asText(value) || undefined}
      onChange={onChange}
    />
  );
}
