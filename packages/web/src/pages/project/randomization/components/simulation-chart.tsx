import { useMemo } from 'react';
import * as echarts from 'echarts/core';
import { BarChart, type BarSeriesOption } from 'echarts/charts';
import {
  GridComponent,
  LegendComponent,
  TooltipComponent,
  type GridComponentOption,
  type LegendComponentOption,
  type TooltipComponentOption,
} from 'echarts/components';
import { CanvasRenderer } from 'echarts/renderers';
import type { RandomizationFactor, SimulationResult } from '@ecrf/core';
import { RANDOMIZATION_TEXT } from '../../../../locales/randomization.zh-CN';
import { EChart } from '../../../../components/echart';
import { PRIMARY_COLOR } from '../../../../theme';

// Only the bar chart is bundled, and only with the simulation panel (this module is loaded lazily).
echarts.use([BarChart, GridComponent, LegendComponent, TooltipComponent, CanvasRenderer]);

type ChartOption = echarts.ComposeOption<
  BarSeriesOption | GridComponentOption | LegendComponentOption | TooltipComponentOption
>;

const t = RANDOMIZATION_TEXT;

/** The bars of one imbalance view: mean and max per category (arm, stratum or factor level). */
function imbalanceOption(categories: string[], mean: number[], max: number[]): ChartOption {
  return {
    grid: { left: 48, right: 16, top: 32, bottom: 56 },
    tooltip: { trigger: 'axis' },
    legend: { top: 0, right: 0 },
    xAxis: { type: 'category', data: categories, axisLabel: { interval: 0, rotate: categories.length > 6 ? 30 : 0 } },
    yAxis: { type: 'value' },
    series: [
      { name: t.meanSeries, type: 'bar', data: mean.map((v) => Number(v.toFixed(2))), color: PRIMARY_COLOR },
      { name: t.maxSeries, type: 'bar', data: max.map((v) => Number(v.toFixed(2))), color: '#f59f00' },
    ],
  };
}

/** Strata and levels are keyed by codes (site=S1|age=O); a person reads their labels. */
function labelsOf(factors: readonly RandomizationFactor[]) {
  const levelLabel = (factor: string, level: string) =>
    factors.find((f) => f.key === factor)?.levels.find((l) => l.code === level)?.label ?? `${factor}=${level}`;
  const factorLabel = (factor: string) => factors.find((f) => f.key === factor)?.label ?? factor;
  const stratumLabel = (key: string) =>
    key
      .split('|')
      .map((part) => {
        const [factor = '', level = ''] = part.split('=');
        return levelLabel(factor, level);
      })
      .join(' / ');
  return { levelLabel, factorLabel, stratumLabel };
}

/**
 * The simulation's charts: patients per arm against the expected number, the overall imbalance's distribution over
 * the runs, and the imbalance per stratum and per factor level.
 */
export default function SimulationCharts({
  result,
  factors,
}: {
  result: SimulationResult;
  factors: readonly RandomizationFactor[];
}) {
  const arms = useMemo<ChartOption>(
    () => ({
      grid: { left: 48, right: 16, top: 32, bottom: 28 },
      tooltip: { trigger: 'axis' },
      legend: { top: 0, right: 0 },
      xAxis: { type: 'category', data: result.arms.map((a) => a.label) },
      yAxis: { type: 'value' },
      series: [
        {
          name: t.expectedSeries,
          type: 'bar',
          data: result.arms.map((a) => Number(a.expected.toFixed(1))),
          color: '#adb5bd',
        },
        {
          name: t.meanSeries,
          type: 'bar',
          data: result.arms.map((a) => Number(a.mean.toFixed(1))),
          color: PRIMARY_COLOR,
        },
        { name: t.minSeries, type: 'bar', data: result.arms.map((a) => a.min), color: '#74c0fc' },
        { name: t.maxSeries, type: 'bar', data: result.arms.map((a) => a.max), color: '#f59f00' },
      ],
    }),
    [result],
  );
  const histogram = useMemo<ChartOption>(
    () => ({
      grid: { left: 48, right: 16, top: 32, bottom: 28 },
      tooltip: { trigger: 'axis' },
      xAxis: {
        type: 'category',
        name: t.imbalanceAxis,
        data: result.overall.histogram.map((h) => String(h.imbalance)),
      },
      yAxis: { type: 'value', name: t.runsAxis, minInterval: 1 },
      series: [
        { name: t.runsAxis, type: 'bar', data: result.overall.histogram.map((h) => h.runs), color: PRIMARY_COLOR },
      ],
    }),
    [result],
  );
  const strata = useMemo(() => result.strata.filter((s) => s.stratum !== ''), [result]);
  const strataOption = useMemo(() => {
    const { stratumLabel } = labelsOf(factors);
    return imbalanceOption(
      strata.map((s) => stratumLabel(s.stratum)),
      strata.map((s) => s.imbalanceMean),
      strata.map((s) => s.imbalanceMax),
    );
  }, [strata, factors]);
  const levels = useMemo(() => {
    const { factorLabel, levelLabel } = labelsOf(factors);
    return imbalanceOption(
      result.factorLevels.map((l) => `${factorLabel(l.factor)}·${levelLabel(l.factor, l.level)}`),
      result.factorLevels.map((l) => l.imbalanceMean),
      result.factorLevels.map((l) => l.imbalanceMax),
    );
  }, [result, factors]);
  return (
    <div className="rand-charts">
      <section>
        <h4>{t.chartArms}</h4>
        <EChart className="rand-chart" option={arms} label={t.chartArms} height={240} />
      </section>
      <section>
        <h4>{t.chartOverall}</h4>
        <EChart className="rand-chart" option={histogram} label={t.chartOverall} height={240} />
      </section>
      {strata.length > 0 && (
        <section>
          <h4>{t.chartStrata}</h4>
          <EChart className="rand-chart" option={strataOption} label={t.chartStrata} height={260} />
        </section>
      )}
      {result.factorLevels.length > 0 && (
        <section>
          <h4>{t.chartLevels}</h4>
          <EChart className="rand-chart" option={levels} label={t.chartLevels} height={260} />
        </section>
      )}
    </div>
  );
}
