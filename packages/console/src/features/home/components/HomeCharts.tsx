/** ECharts for the dashboard, in their own lazily loaded chunk (only the line and pie charts are bundled). */
import * as echarts from 'echarts/core';
import { LineChart, PieChart } from 'echarts/charts';
import { GridComponent, LegendComponent, TooltipComponent } from 'echarts/components';
import { CanvasRenderer } from 'echarts/renderers';
import type { HomeStats } from '@crawldeck/shared';
import { EChart } from './EChart.tsx';

echarts.use([LineChart, PieChart, GridComponent, TooltipComponent, LegendComponent, CanvasRenderer]);

const STATUS_COLORS: Record<string, string> = {
  pending: '#faad14',
  running: '#1677ff',
  finished: '#52c41a',
  error: '#ff4d4f',
  cancelled: '#8c8c8c',
  abnormal: '#722ed1',
};

export function DailyChart({ daily, label }: { daily: HomeStats['daily']; label: string }) {
  return (
    <EChart
      style={{ height: 320 }}
      option={{
        grid: { left: 40, right: 20, top: 20, bottom: 30 },
        tooltip: { trigger: 'axis' },
        xAxis: { type: 'category', data: daily.map((d) => d.date.slice(5)), boundaryGap: false },
        yAxis: { type: 'value', minInterval: 1 },
        series: [
          { name: label, type: 'line', smooth: false, areaStyle: { opacity: 0.15 }, data: daily.map((d) => d.tasks) },
        ],
      }}
    />
  );
}

export function StatusChart({ status, labelOf }: { status: HomeStats['status']; labelOf: (s: string) => string }) {
  return (
    <EChart
      style={{ height: 320 }}
      option={{
        tooltip: { trigger: 'item', formatter: '{b}: {c} ({d}%)' },
        legend: { bottom: 0 },
        series: [
          {
            type: 'pie',
            radius: ['40%', '68%'],
            center: ['50%', '45%'],
            label: { show: true, position: 'inside', formatter: '{c}', color: '#fff', fontWeight: 600 },
            labelLine: { show: false },
            data: status.map((s) => ({
              name: labelOf(s.status),
              value: s.count,
              itemStyle: { color: STATUS_COLORS[s.status.toLowerCase()] },
            })),
          },
        ],
      }}
    />
  );
}

export default { DailyChart, StatusChart };
