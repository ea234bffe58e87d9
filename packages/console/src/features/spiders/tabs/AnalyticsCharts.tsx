/** ECharts of the spider Analytics tab, in their own lazily loaded chunk (bar and line charts only). */
import { useMemo } from 'react';
import * as echarts from 'echarts/core';
import { BarChart, LineChart } from 'echarts/charts';
import { GridComponent, LegendComponent, TooltipComponent } from 'echarts/components';
import { CanvasRenderer } from 'echarts/renderers';
import type { SpiderStatsDay } from '@crawldeck/shared';
import { EChart } from '../../home/components/EChart.tsx';
import { formatDuration } from '../../tasks/format.ts';

echarts.use([BarChart, LineChart, GridComponent, TooltipComponent, LegendComponent, CanvasRenderer]);

const HEIGHT = 280;
const grid = { left: 48, right: 20, top: 36, bottom: 30 };
const xAxis = (daily: SpiderStatsDay[]) => ({ type: 'category', data: daily.map((d) => d.date.slice(5)) });

/** Tasks and errors per day as grouped bars. */
export function TasksChart({ daily, labels }: { daily: SpiderStatsDay[]; labels: { tasks: string; errors: string } }) {
  const option = useMemo(
    () => ({
      grid,
      tooltip: { trigger: 'axis', axisPointer: { type: 'shadow' } },
      legend: { top: 0 },
      xAxis: xAxis(daily),
      yAxis: { type: 'value', minInterval: 1 },
      series: [
        { name: labels.tasks, type: 'bar', itemStyle: { color: '#1677ff' }, data: daily.map((d) => d.tasks) },
        { name: labels.errors, type: 'bar', itemStyle: { color: '#ff4d4f' }, data: daily.map((d) => d.error) },
      ],
    }),
    [daily, labels.tasks, labels.errors],
  );
  return <EChart style={{ height: HEIGHT }} option={option} />;
}

/** Results (items) per day. */
export function ResultsChart({ daily, label }: { daily: SpiderStatsDay[]; label: string }) {
  const option = useMemo(
    () => ({
      grid,
      tooltip: { trigger: 'axis', axisPointer: { type: 'shadow' } },
      legend: { top: 0 },
      xAxis: xAxis(daily),
      yAxis: { type: 'value', minInterval: 1 },
      series: [{ name: label, type: 'bar', itemStyle: { color: '#52c41a' }, data: daily.map((d) => d.results) }],
    }),
    [daily, label],
  );
  return <EChart style={{ height: HEIGHT }} option={option} />;
}

/** Average runtime of the day's ended tasks; days without one (0 from the server) are gaps, not zero. */
export function DurationChart({ daily, label }: { daily: SpiderStatsDay[]; label: string }) {
  const option = useMemo(
    () => ({
      grid: { ...grid, left: 64 },
      tooltip: {
        trigger: 'axis',
        valueFormatter: (v: unknown) => (typeof v === 'number' ? formatDuration(v) : '-'),
      },
      legend: { top: 0 },
      xAxis: { ...xAxis(daily), boundaryGap: false },
      yAxis: { type: 'value', axisLabel: { formatter: (v: number) => (v === 0 ? '0' : formatDuration(v)) } },
      series: [
        {
          name: label,
          type: 'line',
          connectNulls: true,
          symbolSize: 6,
          itemStyle: { color: '#fa8c16' },
          data: daily.map((d) => (d.avg_duration_ms > 0 ? d.avg_duration_ms : null)),
        },
      ],
    }),
    [daily, label],
  );
  return <EChart style={{ height: HEIGHT }} option={option} />;
}

export default { TasksChart, ResultsChart, DurationChart };
