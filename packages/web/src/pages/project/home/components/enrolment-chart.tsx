import { useMemo } from 'react';
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
import { EChart } from '../../../../components/echart';
import { PRIMARY_COLOR } from '../../../../theme';

// Only what this chart draws is bundled: the full echarts build is several times larger.
echarts.use([BarChart, GridComponent, TooltipComponent, CanvasRenderer]);

type ChartOption = echarts.ComposeOption<BarSeriesOption | GridComponentOption | TooltipComponentOption>;

/** 每月入组: patients enrolled per month, as bars. */
export default function EnrolmentChart({ series }: { series: ReadonlyArray<{ month: string; count: number }> }) {
  const option = useMemo<ChartOption>(
    () => ({
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
    }),
    [series],
  );
  return <EChart option={option} label={PROJECT_HOME_TEXT.enrolment} className="home-chart" />;
}
