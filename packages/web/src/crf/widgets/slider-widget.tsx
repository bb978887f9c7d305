import { Button, Slider } from 'antd';
import { sliderRange } from '@ecrf/core';
import { CRF_T } from '../crf-texts';
import type { ControlProps } from './widget-types';

/** 滑块: range and step from core's layout helper (valueMin/valueMax, else the options, else 0–10 step 1). Value: a number. */
export function SliderWidget({ node, id, value, disabled, onChange, onBlur, ariaLabel, labelId }: ControlProps) {
  const { min, max, step } = sliderRange(node.option);
  const current = typeof value === 'number' && Number.isFinite(value) ? value : undefined;
  return (
    <div className="crf-slider" onBlur={onBlur}>
      <Slider
        id={id}
        className="crf-slider-track"
        min={min}
        max={max}
        step={step}
        value={current ?? min}
        disabled={disabled}
        marks={{ [min]: String(min), [max]: String(max) }}
        ariaLabelForHandle={ariaLabel}
        ariaLabelledByForHandle={labelId}
        classNames={current === undefined ? { handle: 'crf-slider-unset' } : undefined}
        onChange={(next: number) => onChange(next)}
      />
      <span className="crf-slider-value">{current ?? CRF_T.sliderUnset}</span>
      {current !== undefined && !disabled && (
        <Button type="link" size="small" className="crf-choice-clear" onClick={() => onChange(undefined)}>
          {CRF_T.clear}
        </Button>
      )}
    </div>
  );
}
