/**
 * Minimal React wrapper over echarts/core (init, setOption, resize, dispose). Used instead of
 * echarts-for-react, whose published build imports `tslib`, which is not resolvable from it in this workspace.
 */
import { useEffect, useRef, type CSSProperties } from 'react';
import * as echarts from 'echarts/core';
import type { EChartsCoreOption } from 'echarts/core';

export function EChart({ option, style }: { option: EChartsCoreOption; style?: CSSProperties }) {
  const ref = useRef<HTMLDivElement>(null);
  const chart = useRef<echarts.ECharts | null>(null);

  useEffect(() => {
    if (!ref.current) return;
    const c = echarts.init(ref.current);
    chart.current = c;
    const ro = new ResizeObserver(() => c.resize());
    ro.observe(ref.current);
    return () => {
      ro.disconnect();
      c.dispose();
      chart.current = null;
    };
  }, []);

  useEffect(() => {
    chart.current?.setOption(option, { notMerge: true });
  }, [option]);

  return <div ref={ref} style={style} />;
}
