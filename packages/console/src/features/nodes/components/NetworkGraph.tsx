/**
 * Network view: ECharts graph with the master in the centre and the workers around it, by status. The legend sits
 * above the graph and the graph keeps its own box below it, so no node is ever drawn under the legend.
 */
import { useMemo } from 'react';
import { Empty } from 'antd';
import * as echarts from 'echarts/core';
import { GraphChart } from 'echarts/charts';
import { LegendComponent, TooltipComponent } from 'echarts/components';
import { CanvasRenderer } from 'echarts/renderers';
import { useTranslation } from 'react-i18next';
import type { NodeListItem } from '@crawldeck/shared';
import { escapeHtml } from '../../../app/escapeHtml.ts';
import { EChart } from '../../home/components/EChart.tsx';
import { NODE_STATUS_HEX } from './NodeStatusTag.tsx';

echarts.use([GraphChart, TooltipComponent, LegendComponent, CanvasRenderer]);

/** Where the graph's box starts, below the legend (px). */
const GRAPH_TOP = 72;

export default function NetworkGraph({
  nodes,
  highlight,
  height = 460,
}: {
  nodes: NodeListItem[];
  highlight?: string;
  height?: number;
}) {
  const { t } = useTranslation('nodes');
  const option = useMemo(() => {
    const masters = nodes.filter((n) => n.type === 'master');
    const workers = nodes.filter((n) => n.type !== 'master');
    const cx = 0;
    const cy = 0;
    const r = 200;
    const statuses = ['online', 'unavailable', 'offline'];
    const data = [
      ...masters.map((n, i) => ({ n, x: cx + i * 60, y: cy, size: 64 })),
      ...workers.map((n, i) => {
        const a = (2 * Math.PI * i) / Math.max(workers.length, 1) - Math.PI / 2;
        return { n, x: cx + r * Math.cos(a), y: cy + r * Math.sin(a), size: 44 };
      }),
    ].map(({ n, x, y, size }) => ({
      id: n._id,
      name: n.name,
      x,
      y,
      symbolSize: size,
      category: Math.max(0, statuses.indexOf(n.status)),
      itemStyle: {
        color: NODE_STATUS_HEX[n.status] ?? '#bfbfbf',
        borderColor: n._id === highlight ? '#1677ff' : '#fff',
        borderWidth: n._id === highlight ? 4 : 2,
        shadowBlur: 8,
        shadowColor: 'rgba(0,0,0,0.15)',
      },
      label: {
        show: true,
        position: 'bottom',
        formatter: `{b}\n{t|${t(`types.${n.type}`)}}`,
        rich: { t: { color: '#8c8c8c', fontSize: 11, lineHeight: 16 } },
        lineHeight: 18,
        color: '#262626',
      },
      value: `${t(`status.${n.status}`)} · ${n.ip || n.systemInfo?.hostname || ''}`,
    }));
    // Two invisible corners of the ring's square: the graph has the same scale whatever the number of nodes.
    const frame = [-1, 1].map((side) => ({
      id: `frame${side}`,
      name: '',
      x: cx + side * (r + 40),
      y: cy + side * (r + 40),
      symbolSize: 0,
      silent: true,
      label: { show: false },
      tooltip: { show: false },
    }));
    const hub = masters[0]?._id;
    const links = hub
      ? workers.map((w) => ({
          source: hub,
          target: w._id,
          lineStyle: {
            color: w.status === 'offline' ? '#d9d9d9' : NODE_STATUS_HEX[w.status],
            type: w.status === 'offline' ? 'dashed' : 'solid',
            width: 2,
          },
        }))
      : [];
    return {
      // The tooltip is HTML: node names and addresses are reported by the nodes, so they are escaped.
      tooltip: {
        formatter: (p: { dataType: string; name: string; value?: string }) =>
          p.dataType === 'node' ? `<b>${escapeHtml(p.name)}</b><br/>${escapeHtml(p.value)}` : '',
      },
      legend: { data: statuses.map((s) => t(`status.${s}`)), top: 0 },
      series: [
        {
          type: 'graph',
          layout: 'none',
          // the graph's box: below the legend, with room for the labels under the nodes
          left: 60,
          right: 60,
          top: GRAPH_TOP,
          bottom: 48,
          // circles stay circles: the ring's square is fitted into the box, not stretched over it
          preserveAspect: true,
          roam: true,
          data: [...data, ...frame],
          links,
          categories: statuses.map((s) => ({ name: t(`status.${s}`), itemStyle: { color: NODE_STATUS_HEX[s] } })),
          emphasis: { focus: 'adjacency' },
          edgeSymbol: ['none', 'arrow'],
          edgeSymbolSize: 6,
        },
      ],
    };
  }, [nodes, highlight, t]);

  if (!nodes.length) return <Empty description={t('network.empty')} />;
  return (
    <div className="node-network" data-testid="node-network">
      <EChart option={option} style={{ height, width: '100%' }} />
    </div>
  );
}
