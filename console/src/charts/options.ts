/**
 * Pure builders of the overview's chart options, from the overview's rows to ECharts options. Kept
 * apart from the SFCs so they are tested without a canvas.
 */
import type { UsageOverview } from '../../../contracts/console-api.ts';
import type { ChartOption } from './echarts.ts';

type SeriesRow = UsageOverview['series'][number];
export type StackMetric = 'calls' | 'total_tokens';

export interface Stacked {
  buckets: string[];
  models: string[];
  /** per model, one value per bucket */
  values: Record<string, number[]>;
}

/** Rows by (bucket, model) into one array per model over every bucket, missing ones as 0. */
export function stackByModel(series: readonly SeriesRow[], buckets: readonly string[], metric: StackMetric): Stacked {
  const index = new Map(buckets.map((bucket, position) => [Date.parse(bucket), position]));
  const totals = new Map<string, number>();
  for (const row of series) totals.set(row.model, (totals.get(row.model) ?? 0) + row[metric]);
  // Largest first, so the biggest model sits at the bottom of the stack and first in the legend.
  const models = [...totals.keys()].sort((left, right) => totals.get(right)! - totals.get(left)!);
  const values: Record<string, number[]> = Object.fromEntries(models.map((model) => [model, buckets.map(() => 0)]));
  for (const row of series) {
    const position = index.get(Date.parse(row.bucket));
    if (position !== undefined) values[row.model]![position]! += row[metric];
  }
  return { buckets: [...buckets], models, values };
}

export const modelLabel = (model: string) => model || '(none)';

export function timeSeriesOption(
  stacked: Stacked,
  kind: 'bar' | 'line',
  bucketLabel: (bucket: string) => string,
  valueLabel: (value: number) => string,
): ChartOption {
  return {
    grid: { left: 8, right: 16, top: 40, bottom: 8, containLabel: true },
    legend: { type: 'scroll', top: 0 },
    tooltip: { trigger: 'axis', valueFormatter: (value) => valueLabel(Number(value)) },
    xAxis: { type: 'category', data: stacked.buckets.map(bucketLabel), boundaryGap: kind === 'bar' },
    yAxis: { type: 'value', minInterval: 1, axisLabel: { formatter: (value: number) => valueLabel(value) } },
    series: stacked.models.map((model) => ({
      name: modelLabel(model),
      type: kind,
      stack: 'total',
      data: stacked.values[model],
      ...(kind === 'line' && { areaStyle: { opacity: 0.25 }, smooth: true, showSymbol: false }),
      emphasis: { focus: 'series' as const },
    })),
  } as ChartOption;
}

export function shareOption(
  rows: ReadonlyArray<{ label: string; value: number }>,
  valueLabel: (value: number) => string,
): ChartOption {
  return {
    tooltip: { trigger: 'item', valueFormatter: (value) => valueLabel(Number(value)) },
    legend: { type: 'scroll', bottom: 0 },
    series: [
      {
        type: 'pie',
        radius: ['45%', '70%'],
        center: ['50%', '45%'],
        avoidLabelOverlap: true,
        label: { formatter: '{b}: {d}%' },
        data: rows.map((row) => ({ name: row.label, value: row.value })),
      },
    ],
  };
}

export function topKeysOption(
  rows: ReadonlyArray<{ label: string; value: number }>,
  valueLabel: (value: number) => string,
): ChartOption {
  const ordered = [...rows].reverse(); // the largest on top of a horizontal bar chart
  return {
    grid: { left: 8, right: 24, top: 8, bottom: 8, containLabel: true },
    tooltip: { trigger: 'axis', axisPointer: { type: 'shadow' }, valueFormatter: (value) => valueLabel(Number(value)) },
    xAxis: { type: 'value', axisLabel: { formatter: (value: number) => valueLabel(value) } },
    yAxis: { type: 'category', data: ordered.map((row) => row.label) },
    series: [{ type: 'bar', data: ordered.map((row) => row.value), barMaxWidth: 24 }],
  };
}
