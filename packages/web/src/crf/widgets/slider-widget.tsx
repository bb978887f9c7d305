import { Button, ConfigProvider, Slider } from 'antd';
import { sliderRange } from '@ecrf/core';
import { CRF_T } from '../crf-texts';
import { useTouchScreen } from '../touch';
import type { ControlProps } from './widget-types';

/** A finger needs a bigger handle and rail than a mouse; antd's own tokens, so hover and focus rings follow. */
const TOUCH_SLIDER = {
  components: { Slider: { handleSize: 22, handleSizeHover: 24, railSize: 6, controlSize: 28, dotSize: 10 } },
};

/** 滑块: range and step from core's layout helper (valueMin/valueMax, else the options, else 0–10 step 1). Value: a number. */
export function SliderWidget({ node, id, value, disabled, onChange, onBlur, ariaLabel, labelId }: ControlProps) {
  const { min, max, step } = sliderRange(node.option);
  const touch = useTouchScreen();
  const current = typeof value === 'number' && Number.isFinite(value) ? value : undefined;
  const slider = (
    <Slider
      id={id}
      className={`crf-slider-track${touch ? ' crf-slider-touch' : ''}`}
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
  );
  return (
    <div className="crf-slider" onBlur={onBlur}>
      {touch ? <ConfigProvider theme={TOUCH_SLIDER}>{slider}</ConfigProvider> : slider}
      <span className="crf-slider-value">{current ?? CRF_T.sliderUnset}</span>
      {current !== undefined && !disabled && (
        <Button type="link" size="small" className="crf-choice-clear" onClick={() => onChange(undefined)}>
          {CRF_T.clear}
        </Button>
      )}
    </div>
  );
}
