import { useEffect, useRef } from 'react';
import * as echarts from 'echarts/core';
import { BarChart, type BarSeriesOption } from 'echarts/charts';
import {
  GridComponent,
  TooltipComponent,
  type GridComponentOption,
  type TooltipComponentOption,
} from 'echarts/components';
import { CanvasRenderer } from 'echarts/renderers';
import { PROJECT_HOME_TEXT } from '../../../../locales/project-home.zh-CN';
import { PRIMARY_COLOR } from '../../../../theme';

// Only what this chart draws is bundled: the full echarts build is several times larger.
echarts.use([BarChart, GridComponent, TooltipComponent, CanvasRenderer]);

type ChartOption = echarts.ComposeOption<BarSeriesOption | GridComponentOption | TooltipComponentOption>;

/** 每月入组: patients enrolled per month, as bars. */
export default function EnrolmentChart({ series }: { series: ReadonlyArray<{ month: string; count: number }> }) {
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
    const option: ChartOption = {
      grid: { left: 40, right: 16, top: 24, bottom: 28 },
      tooltip: { trigger: 'axis', axisPointer: { type: 'shadow' } },
      xAxis: { type: 'category', data: series.map((e) => e.month), axisTick: { alignWithLabel: true } },
      yAxis: { type: 'value', minInterval: 1 },
      series: [
        {
          name: PROJECT_HOME_TEXT.enrolmentSeries,
          type: 'bar',
          data: series.map((e) => e.count),
          barMaxWidth: 28,
          itemStyle: { color: PRIMARY_COLOR, borderRadius: [3, 3, 0, 0] },
          label: { show: true, position: 'top', formatter: (p) => (Number(p.value) > 0 ? String(p.value) : '') },
        },
      ],
    };
    chart.current?.setOption(option, true);
  }, [series]);

  return <div ref={element} className="home-chart" role="img" aria-label={PROJECT_HOME_TEXT.enrolment} />;
}
