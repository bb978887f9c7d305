import { SingleChoice, choiceLook } from './choice-controls';
import type { ControlProps } from './widget-types';
import { asText } from './widget-utils';

/** 单选: radios in a row; showStyle list/open stacks them, tag makes buttons, pop a drop-down. Value: the option value. */
export function RadioWidget({ value, onChange, ...props }: ControlProps) {
  return (
    <SingleChoice
      {...props}
      look={choiceLook(props.node, 'inline')}
      value={asText(value) || undefined}
      onChange={onChange}
    />
  );
}
