import * as echarts from 'echarts/core';
import { BarChart, LineChart, type BarSeriesOption, type LineSeriesOption } from 'echarts/charts';
import {
  GridComponent,
  LegendComponent,
  MarkLineComponent,
  TooltipComponent,
  type GridComponentOption,
  type LegendComponentOption,
  type MarkLineComponentOption,
  type TooltipComponentOption,
} from 'echarts/components';
import { CanvasRenderer } from 'echarts/renderers';
import { PROJECT_HOME_TEXT } from '../../../../locales/project-home.zh-CN';
import { EChart } from '../../../../components/echart';
import { PRIMARY_COLOR } from '../../../../theme';

// Only what these charts draw is bundled, and only on the study home (this module is loaded lazily).
echarts.use([BarChart, LineChart, GridComponent, LegendComponent, MarkLineComponent, TooltipComponent, CanvasRenderer]);

type ChartOption = echarts.ComposeOption<
  | BarSeriesOption
  | LineSeriesOption
  | GridComponentOption
  | LegendComponentOption
  | MarkLineComponentOption
  | TooltipComponentOption
>;

const H = PROJECT_HOME_TEXT;
const SUBMITTED_COLOR = '#2f9e44';
const INCOMPLETE_COLOR = '#f59f00';
const OPENED_COLOR = '#e03131';

/** A chart of the study home: 300 high unless its rows need more. */
function HomeChart({ option, label, height = 300 }: { option: ChartOption; label: string; height?: number }) {
  return <EChart option={option} label={label} className="home-chart" height={height} />;
}

/** 累计入组: patients enrolled up to each month, against the study's target (and its date) when one is set. */
export function CumulativeEnrolmentChart({
  series,
  target,
  targetDate = null,
}: {
  series: ReadonlyArray<{ month: string; total: number }>;
  target: number | null;
  targetDate?: string | null;
}) {
  const option: ChartOption = {
    grid: { left: 48, right: 24, top: 32, bottom: 28 },
    tooltip: { trigger: 'axis' },
    legend: { top: 0, right: 0 },
    xAxis: { type: 'category', data: series.map((e) => e.month), boundaryGap: false },
    yAxis: { type: 'value', minInterval: 1, max: target ? (v) => Math.max(v.max, target) : undefined },
    series: [
      {
        name: H.cumulativeSeries,
        type: 'line',
        data: series.map((e) => e.total),
        areaStyle: { opacity: 0.12 },
        itemStyle: { color: PRIMARY_COLOR },
        ...(target
          ? {
              markLine: {
                symbol: 'none',
                lineStyle: { type: 'dashed', color: OPENED_COLOR },
                label: {
                  formatter: targetDate ? H.targetBy(target, targetDate) : `${H.target} ${target}`,
                  position: 'insideEndTop',
                },
                data: [{ yAxis: target }],
              },
            }
          : {}),
      },
    ],
  };
  return <HomeChart option={option} label={H.cumulative} />;
}

/** 表单状态: each CRF's forms 未完成 and 已提交, stacked. */
export function FormsByStateChart({
  forms,
}: {
  forms: ReadonlyArray<{ title: string; incomplete: number; submitted: number }>;
}) {
  const option: ChartOption = {
    grid: { left: 16, right: 24, top: 32, bottom: 8, containLabel: true },
    tooltip: { trigger: 'axis', axisPointer: { type: 'shadow' } },
    legend: { top: 0, right: 0 },
    xAxis: { type: 'value', minInterval: 1 },
    yAxis: { type: 'category', data: forms.map((f) => f.title), inverse: true },
    series: [
      {
        name: H.formsSubmitted,
        type: 'bar',
        stack: 'forms',
        data: forms.map((f) => f.submitted),
        itemStyle: { color: SUBMITTED_COLOR },
        barMaxWidth: 20,
      },
      {
        name: H.formsIncomplete,
        type: 'bar',
        stack: 'forms',
        data: forms.map((f) => f.incomplete),
        itemStyle: { color: INCOMPLETE_COLOR },
        barMaxWidth: 20,
      },
    ],
  };
  return <HomeChart option={option} label={H.formsByState} height={Math.max(200, 48 + forms.length * 32)} />;
}

/** 每周质疑: queries raised and closed in each week (Monday first). */
export function QueriesWeeklyChart({
  weeks,
}: {
  weeks: ReadonlyArray<{ week: string; opened: number; closed: number }>;
}) {
  const option: ChartOption = {
    grid: { left: 40, right: 16, top: 32, bottom: 28 },
    tooltip: { trigger: 'axis', axisPointer: { type: 'shadow' } },
    legend: { top: 0, right: 0 },
    xAxis: { type: 'category', data: weeks.map((w) => w.week.slice(5)) },
    yAxis: { type: 'value', minInterval: 1 },
    series: [
      {
        name: H.queriesOpened,
        type: 'bar',
        data: weeks.map((w) => w.opened),
        itemStyle: { color: OPENED_COLOR },
        barMaxWidth: 16,
      },
      {
        name: H.queriesClosed,
        type: 'bar',
        data: weeks.map((w) => w.closed),
        itemStyle: { color: SUBMITTED_COLOR },
        barMaxWidth: 16,
      },
    ],
  };
  return <HomeChart option={option} label={H.queriesWeekly} />;
}

type Compliance = { visitName: string; onTime: number; late: number; overdue: number; lost: number; pending: number };

/** 随访依从性: each planned visit's patients by outcome, stacked. */
export function FollowComplianceChart({ visits }: { visits: ReadonlyArray<Compliance> }) {
  const parts: Array<[keyof Omit<Compliance, 'visitName'>, string, string]> = [
    ['onTime', H.complianceOnTime, SUBMITTED_COLOR],
    ['late', H.complianceLate, INCOMPLETE_COLOR],
    ['overdue', H.complianceOverdue, OPENED_COLOR],
    ['lost', H.complianceLost, '#868e96'],
    ['pending', H.compliancePending, '#a5d8ff'],
  ];
  const option: ChartOption = {
    grid: { left: 40, right: 16, top: 32, bottom: 28 },
    tooltip: { trigger: 'axis', axisPointer: { type: 'shadow' } },
    legend: { top: 0, right: 0 },
    xAxis: { type: 'category', data: visits.map((v) => v.visitName) },
    yAxis: { type: 'value', minInterval: 1 },
    series: parts.map(([key, name, color]) => ({
      name,
      type: 'bar',
      stack: 'visits',
      data: visits.map((v) => v[key]),
      itemStyle: { color },
      barMaxWidth: 28,
    })),
  };
  return <HomeChart option={option} label={H.followCompliance} />;
}

/** The dashboard's charts below the monthly enrolment, each in its card. */
export default function DashboardCharts({
  cumulative,
  target,
  targetDate = null,
  forms,
  weeks,
  compliance,
}: {
  cumulative: ReadonlyArray<{ month: string; total: number }>;
  target: number | null;
  targetDate?: string | null;
  forms: ReadonlyArray<{ title: string; incomplete: number; submitted: number }>;
  weeks: ReadonlyArray<{ week: string; opened: number; closed: number }>;
  compliance: ReadonlyArray<Compliance>;
}) {
  return (
    <div className="home-charts">
      <div className="home-chart-card">
        <h3 className="home-chart-title">{H.cumulative}</h3>
        <CumulativeEnrolmentChart series={cumulative} target={target} targetDate={targetDate} />
        {target === null && <p className="home-chart-note">{H.noTarget}</p>}
      </div>
      <div className="home-chart-card">
        <h3 className="home-chart-title">{H.queriesWeekly}</h3>
        <QueriesWeeklyChart weeks={weeks} />
      </div>
      <div className="home-chart-card">
        <h3 className="home-chart-title">{H.formsByState}</h3>
        <FormsByStateChart forms={forms} />
      </div>
      <div className="home-chart-card">
        <h3 className="home-chart-title">{H.followCompliance}</h3>
        {compliance.length > 0 ? (
          <FollowComplianceChart visits={compliance} />
        ) : (
          <p className="home-chart-note">{H.noFollowVisits}</p>
        )}
      </div>
    </div>
  );
}
