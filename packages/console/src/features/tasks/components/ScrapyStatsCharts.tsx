/** ECharts of the task Stats tab and the spider's Scrapy runs, in their own lazily loaded chunk. */
import { useMemo } from 'react';
import * as echarts from 'echarts/core';
import { BarChart, LineChart } from 'echarts/charts';
import { GridComponent, LegendComponent, TooltipComponent } from 'echarts/components';
import { CanvasRenderer } from 'echarts/renderers';
import type { ScrapyStatsSample, SpiderScrapyRun } from '@crawldeck/shared';
import { EChart } from '../../home/components/EChart.tsx';
import { formatTs } from '../format.ts';

echarts.use([BarChart, LineChart, GridComponent, TooltipComponent, LegendComponent, CanvasRenderer]);

const HEIGHT = 280;
const grid = { left: 56, right: 56, top: 36, bottom: 30 };

/** Pages and items per minute (left axis) and items so far (right axis), one point per "Crawled …" line. */
export function RateChart({
  samples,
  labels,
}: {
  samples: ScrapyStatsSample[];
  labels: { pages: string; items: string; total: string };
}) {
  const option = useMemo(
    () => ({
      grid,
      tooltip: { trigger: 'axis' },
      legend: { top: 0 },
      xAxis: { type: 'category', data: samples.map((s) => s.at.slice(11) || '-') },
      yAxis: [
        { type: 'value', minInterval: 1 },
        { type: 'value', minInterval: 1, splitLine: { show: false } },
      ],
      series: [
        {
          name: labels.pages,
          type: 'line',
          smooth: true,
          itemStyle: { color: '#1677ff' },
          data: samples.map((s) => s.pages_per_min),
        },
        {
          name: labels.items,
          type: 'line',
          smooth: true,
          itemStyle: { color: '#52c41a' },
          data: samples.map((s) => s.items_per_min),
        },
        {
          name: labels.total,
          type: 'line',
          yAxisIndex: 1,
          step: 'end',
          itemStyle: { color: '#722ed1' },
          data: samples.map((s) => s.items),
        },
      ],
    }),
    [samples, labels.pages, labels.items, labels.total],
  );
  return <EChart style={{ height: HEIGHT }} option={option} />;
}

/** Counts per key (HTTP status, log level) as bars. */
export function CountsChart({
  counts,
  label,
  color,
}: {
  counts: Record<string, number>;
  label: string;
  color: string;
}) {
  const option = useMemo(() => {
    const keys = Object.keys(counts).sort();
    return {
      grid: { left: 56, right: 20, top: 36, bottom: 30 },
      tooltip: { trigger: 'axis', axisPointer: { type: 'shadow' } },
      legend: { top: 0 },
      xAxis: { type: 'category', data: keys },
      yAxis: { type: 'value', minInterval: 1 },
      series: [{ name: label, type: 'bar', barMaxWidth: 48, itemStyle: { color }, data: keys.map((k) => counts[k]) }],
    };
  }, [counts, label, color]);
  return <EChart style={{ height: HEIGHT }} option={option} />;
}

/** Items, pages and error lines of a spider's latest runs, oldest first. */
export function RunsChart({
  runs,
  labels,
}: {
  runs: SpiderScrapyRun[];
  labels: { items: string; pages: string; errors: string };
}) {
  const option = useMemo(() => {
    const ordered = [...runs].reverse();
    return {
      grid,
      tooltip: { trigger: 'axis', axisPointer: { type: 'shadow' } },
      legend: { top: 0 },
      xAxis: { type: 'category', data: ordered.map((r) => formatTs(r.create_ts).slice(5, 16)) },
      yAxis: [
        { type: 'value', minInterval: 1 },
        { type: 'value', minInterval: 1, splitLine: { show: false } },
      ],
      series: [
        {
          name: labels.items,
          type: 'bar',
          barMaxWidth: 32,
          itemStyle: { color: '#52c41a' },
          data: ordered.map((r) => r.items),
        },
        {
          name: labels.pages,
          type: 'bar',
          barMaxWidth: 32,
          itemStyle: { color: '#1677ff' },
          data: ordered.map((r) => r.pages),
        },
        {
          name: labels.errors,
          type: 'line',
          yAxisIndex: 1,
          itemStyle: { color: '#ff4d4f' },
          data: ordered.map((r) => r.errors),
        },
      ],
    };
  }, [runs, labels.items, labels.pages, labels.errors]);
  return <EChart style={{ height: HEIGHT }} option={option} />;
}
