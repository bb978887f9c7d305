import { useEffect, useRef } from 'react';
import * as echarts from 'echarts/core';

interface EChartProps {
  /** The chart's option; the module that builds it registers (echarts.use) the series and components it draws. */
  option: echarts.EChartsCoreOption;
  /** What the chart shows, read out for the picture (role img). */
  label: string;
  className: string;
  /** Its height in pixels; without one the class sets it. */
  height?: number;
}

/**
 * One chart: created once, given a new option when the figures change, resized with its box. Import it only
 * from modules loaded lazily, so that echarts stays out of the first page.
 */
export function EChart({ option, label, className, height }: EChartProps) {
  const element = useRef<HTMLDivElement>(null);
  const chart = useRef<echarts.ECharts | null>(null);

  useEffect(() => {
    const node = element.current;
    if (!node) return;
    const instance = echarts.init(node, undefined, { renderer: 'canvas' });
    chart.current = instance;
    const observer = new ResizeObserver(() => instance.resize());
    observer.observe(node);
    return () => {
      observer.disconnect();
      instance.dispose();
      chart.current = null;
    };
  }, []);

  useEffect(() => {
    chart.current?.setOption(option, true);
  }, [option]);

  return (
    <div
      ref={element}
      className={className}
      style={height === undefined ? undefined : { height }}
      role="img"
      aria-label={label}
    />
  );
}
