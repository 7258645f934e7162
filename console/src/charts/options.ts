/**
 * Pure builders of the overview's chart options, from the overview's rows to ECharts options. Kept
 * apart from the SFCs so they are tested without a canvas.
 */
import type { UsageOverview } from '@contracts/console-api.ts';
import type { ChartOption } from './echarts.ts';

type SeriesRow = UsageOverview['series'][number];
export type StackMetric = 'calls' | 'total_tokens';

export interface Stacked {
  buckets: string[];
  models: string[];
  /** per model, one value per bucket */
  values: Record<string, number[]>;
}

/** The group of requests refused before routing (unknown model, unreadable body): not a model. */
export const REFUSED = '\u0000refused';
/** The group of the models with small shares. */
export const OTHER = '\u0000other';

/**
 * Which chart group each model falls in: a model all of whose requests were refused before routing
 * goes to REFUSED (a made-up model name must not take a slice or a legend entry), models under
 * `smallShare` of the served total go to OTHER when there are two or more of them, the rest stay.
 */
export function modelGroups(
  byModel: UsageOverview['by_model'],
  metric: StackMetric,
  smallShare = 0.03,
): (model: string) => string {
  const groups = new Map<string, string>();
  const served = byModel.filter((row) => row.calls > (row.refused_requests ?? 0));
  for (const row of byModel) if (!served.includes(row)) groups.set(row.model, REFUSED);
  const total = served.reduce((sum, row) => sum + row[metric], 0);
  const small = served.filter((row) => total > 0 && row[metric] / total < smallShare);
  if (small.length >= 2) for (const row of small) groups.set(row.model, OTHER);
  return (model) => groups.get(model) ?? model;
}

/** Rows by (bucket, model) into one array per model over every bucket, missing ones as 0. */
export function stackByModel(
  series: readonly SeriesRow[],
  buckets: readonly string[],
  metric: StackMetric,
  groupOf: (model: string) => string = (model) => model,
): Stacked {
  const index = new Map(buckets.map((bucket, position) => [Date.parse(bucket), position]));
  const totals = new Map<string, number>();
  for (const row of series) totals.set(groupOf(row.model), (totals.get(groupOf(row.model)) ?? 0) + row[metric]);
  // Largest first, so the biggest model sits at the bottom of the stack and first in the legend.
  // The refused group last: it is not a model and should not sit under the served ones.
  const models = [...totals.keys()]
    .filter((model) => model !== REFUSED || totals.get(model)! > 0)
    .sort(
      (left, right) => Number(left === REFUSED) - Number(right === REFUSED) || totals.get(right)! - totals.get(left)!,
    );
  const values: Record<string, number[]> = Object.fromEntries(models.map((model) => [model, buckets.map(() => 0)]));
  for (const row of series) {
    const position = index.get(Date.parse(row.bucket));
    const groupValues = values[groupOf(row.model)];
    if (position !== undefined && groupValues) groupValues[position]! += row[metric];
  }
  return { buckets: [...buckets], models, values };
}

export const modelLabel = (model: string) => model || '(none)';

/** Below this width (px) a chart is on a phone: donuts name their slices in the legend only. */
export const NARROW_CHART = 480;

/** Served models, then OTHER; REFUSED left out (the share of traffic served). */
export function shareRows(
  byModel: UsageOverview['by_model'],
  metric: StackMetric,
  groupOf: (model: string) => string,
): Array<{ group: string; value: number }> {
  const sums = new Map<string, number>();
  for (const row of byModel) {
    const group = groupOf(row.model);
    if (group !== REFUSED) sums.set(group, (sums.get(group) ?? 0) + row[metric]);
  }
  return [...sums]
    .map(([group, value]) => ({ group, value }))
    .sort((left, right) => Number(left.group === OTHER) - Number(right.group === OTHER) || right.value - left.value);
}

/** `colorOf`: each group's colour (charts/colors.ts), the same in every chart. */
export function timeSeriesOption(
  stacked: Stacked,
  kind: 'bar' | 'line',
  bucketLabel: (bucket: string) => string,
  valueLabel: (value: number) => string,
  groupLabel: (group: string) => string = modelLabel,
  colorOf?: (group: string) => string,
): ChartOption {
  return {
    grid: { left: 8, right: 16, top: 40, bottom: 8, containLabel: true },
    // Plain, not paged: grouping keeps the entries few, and a paged legend hid most of them on a phone.
    legend: { type: 'plain', top: 0 },
    tooltip: { trigger: 'axis', valueFormatter: (value) => valueLabel(Number(value)) },
    xAxis: {
      type: 'category',
      data: stacked.buckets.map(bucketLabel),
      boundaryGap: kind === 'bar',
      // A line's first and last labels sit on the chart's edges, where centred they were cut in half;
      // a bar's sit mid-band, where moving them would crowd their neighbours.
      ...(kind === 'line' && { axisLabel: { alignMinLabel: 'left', alignMaxLabel: 'right' } }),
    },
    yAxis: { type: 'value', minInterval: 1, axisLabel: { formatter: (value: number) => valueLabel(value) } },
    series: stacked.models.map((model) => {
      const color = colorOf?.(model);
      return {
        name: groupLabel(model),
        type: kind,
        stack: 'total',
        data: stacked.values[model],
        ...(color && { itemStyle: { color }, ...(kind === 'line' && { lineStyle: { color } }) }),
        // Not smoothed: counts are whole per bucket, and a smoothed line rose over empty buckets.
        ...(kind === 'line' && { areaStyle: { opacity: 0.25 }, smooth: false, showSymbol: false }),
        emphasis: { focus: 'series' as const },
      };
    }),
  } as ChartOption;
}

/**
 * A donut of shares. `narrow` (a phone): no labels beside the slices, which shrank to "g…" there;
 * the legend names them, and the tooltip gives each one's value and share.
 */
export function shareOption(
  rows: ReadonlyArray<{ label: string; value: number; color?: string }>,
  valueLabel: (value: number) => string,
  { narrow = false } = {},
): ChartOption {
  return {
    tooltip: { trigger: 'item', valueFormatter: (value) => valueLabel(Number(value)) },
    legend: { show: true, type: 'plain', bottom: 0 },
    series: [
      {
        type: 'pie',
        radius: narrow ? ['40%', '65%'] : ['45%', '70%'],
        center: ['50%', '42%'],
        avoidLabelOverlap: true,
        label: { show: !narrow, formatter: '{b}: {d}%' },
        labelLine: { show: !narrow },
        data: rows.map((row) => ({
          name: row.label,
          value: row.value,
          ...(row.color && { itemStyle: { color: row.color } }),
        })),
      },
    ],
  };
}

/**
 * The top keys as horizontal bars with their values. The grid leaves room on the right for the longest
 * value (the largest bar's "$0.0001" was cut at the card's edge), and on a narrow screen long key
 * names are shortened with "…" (the tooltip has them whole) so the bars keep some width.
 */
export function topKeysOption(
  rows: ReadonlyArray<{ label: string; value: number }>,
  valueLabel: (value: number) => string,
  { narrow = false } = {},
): ChartOption {
  const ordered = [...rows].reverse(); // the largest on top of a horizontal bar chart
  const longestValue = Math.max(0, ...rows.map((row) => valueLabel(row.value).length));
  return {
    // About 7 px a character at the label's 12 px.
    grid: { left: 8, right: 12 + 7 * longestValue, top: 8, bottom: 8, containLabel: true },
    tooltip: { trigger: 'axis', axisPointer: { type: 'shadow' }, valueFormatter: (value) => valueLabel(Number(value)) },
    // Small dollar amounts are long labels: the axis drops those that would overlap (each bar has its value).
    xAxis: { type: 'value', axisLabel: { formatter: (value: number) => valueLabel(value), hideOverlap: true } },
    yAxis: {
      type: 'category',
      data: ordered.map((row) => row.label),
      axisLabel: { width: narrow ? 110 : 220, overflow: 'truncate' },
    },
    series: [
      {
        type: 'bar',
        data: ordered.map((row) => row.value),
        barMaxWidth: 24,
        label: {
          show: true,
          position: 'right',
          formatter: (item: { value: unknown }) => valueLabel(Number(item.value)),
        },
      },
    ],
  };
}
