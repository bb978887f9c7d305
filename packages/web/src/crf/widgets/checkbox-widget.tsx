import { readChoiceList, writeCheckbox } from '@ecrf/core';
import { MultiChoice, choiceLook } from './choice-controls';
import type { ControlProps } from './widget-types';

/** 多选: check boxes; any stored shape is read, an array of option values is written (forms §3). */
export function CheckboxWidget({ value, onChange, ...props }: ControlProps) {
  return (
    <MultiChoice
      {...props}
      look={choiceLook(props.node, 'inline')}
      value={readChoiceList(value)}
      onChange={(next) => onChange(writeCheckbox(next))}
    />
  );
}
