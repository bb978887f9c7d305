import { readChoiceList, writeMultiSelect } from '@ecrf/core';
import { MultiChoice, choiceLook } from './choice-controls';
import type { ControlProps } from './widget-types';

/** 下拉多选: a multiple drop-down (tag: tags, list/open: check boxes); written as a comma string (forms §3). */
export function MultiSelectWidget({ value, onChange, ...props }: ControlProps) {
  return (
    <MultiChoice
      {...props}
      look={choiceLook(props.node, 'pop')}
      value={readChoiceList(value)}
      onChange={(next) => onChange(writeMultiSelect(next))}
    />
  );
}
