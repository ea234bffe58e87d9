/** Monitor of the node detail: CPU, memory and disk (%) over time from heartbeats (GET /nodes/{id}/system). */
import { useMemo, useState } from 'react';
import { Card, Col, Empty, Row, Segmented, Space, Statistic, Typography } from 'antd';
import * as echarts from 'echarts/core';
import { LineChart } from 'echarts/charts';
import { DataZoomComponent, GridComponent, LegendComponent, TooltipComponent } from 'echarts/components';
import { CanvasRenderer } from 'echarts/renderers';
import dayjs from 'dayjs';
import { useTranslation } from 'react-i18next';
import { EChart } from '../../home/components/EChart.tsx';
import { formatBytes } from '../../tasks/format.ts';
import { useNodeSystem } from '../api.ts';

echarts.use([LineChart, GridComponent, TooltipComponent, LegendComponent, DataZoomComponent, CanvasRenderer]);

const RANGES = [15, 60, 360, 1440];

export default function MonitorCharts({ nodeId, active }: { nodeId: string; active: boolean }) {
  const { t } = useTranslation('nodes');
  const [minutes, setMinutes] = useState(60);
  const sys = useNodeSystem(nodeId, minutes, active);
  const samples = useMemo(() => sys.data?.metrics ?? [], [sys.data]);
  const current = sys.data?.current;

  const option = useMemo(() => {
    const series = [
      { key: 'cpu', name: t('monitor.cpu'), color: '#1677ff' },
      { key: 'mem', name: t('monitor.memory'), color: '#52c41a' },
      { key: 'disk', name: t('monitor.disk'), color: '#fa8c16' },
    ] as const;
    return {
      tooltip: { trigger: 'axis', valueFormatter: (v: number) => `${Number(v).toFixed(1)}%` },
      legend: { top: 0 },
      grid: { left: 48, right: 24, top: 40, bottom: 56 },
      xAxis: {
        type: 'time',
        axisLabel: {
          formatter: (v: number) =>
            dayjs(v).format(minutes <= 60 ? 'HH:mm:ss' : minutes < 1440 ? 'HH:mm' : 'MM-DD HH:mm'),
          hideOverlap: true,
        },
      },
      yAxis: { type: 'value', min: 0, max: 100, axisLabel: { formatter: '{value}%' } },
      dataZoom: [{ type: 'inside' }, { type: 'slider', height: 18, bottom: 8 }],
      series: series.map((s) => ({
        name: s.name,
        type: 'line',
        showSymbol: false,
        smooth: true,
        lineStyle: { width: 2 },
        itemStyle: { color: s.color },
        areaStyle: s.key === 'cpu' ? { opacity: 0.08 } : undefined,
        data: samples.filter((m) => m.ts).map((m) => [Date.parse(m.ts ?? ''), m[s.key]]),
      })),
    };
  }, [samples, t, minutes]);

  const cards = [
    { k: 'cpu', label: t('monitor.cpu'), v: current?.cpu, extra: '' },
    {
      k: 'mem',
      label: t('monitor.memory'),
      v: current?.mem,
      extra: current ? `${t('monitor.memTotal')} ${formatBytes(current.mem_total)}` : '',
    },
    {
      k: 'disk',
      label: t('monitor.disk'),
      v: current?.disk,
      extra: current ? `${t('monitor.diskTotal')} ${formatBytes(current.disk_total)}` : '',
    },
    { k: 'running', label: t('monitor.running'), v: current?.running, extra: '' },
  ];

  return (
    <div className="node-monitor" data-testid="node-monitor">
      <Space style={{ marginBottom: 12 }} wrap>
        <Typography.Text type="secondary">{t('monitor.range')}</Typography.Text>
        <Segmented
          value={minutes}
          onChange={(v) => setMinutes(Number(v))}
          options={RANGES.map((m) => ({
            value: m,
            label: m < 60 ? t('monitor.minutes', { count: m }) : t('monitor.hours', { count: m / 60 }),
          }))}
        />
      </Space>
      <Row gutter={[12, 12]} style={{ marginBottom: 12 }}>
        {cards.map((c) => (
          <Col xs={12} md={6} key={c.k}>
            <Card size="small" style={{ height: '100%' }}>
              <Statistic
                title={`${c.label} · ${t('monitor.current')}`}
                value={c.v ?? '-'}
                precision={c.k === 'running' || c.v == null ? 0 : 1}
                suffix={c.k === 'running' || c.v == null ? undefined : '%'}
              />
              {c.extra ? (
                <Typography.Text type="secondary" style={{ fontSize: 12 }}>
                  {c.extra}
                </Typography.Text>
              ) : null}
            </Card>
          </Col>
        ))}
      </Row>
      {samples.length ? (
        <EChart option={option} style={{ height: 340, width: '100%' }} />
      ) : (
        <Empty description={sys.isLoading ? '…' : t('monitor.empty')} />
      )}
    </div>
  );
}
