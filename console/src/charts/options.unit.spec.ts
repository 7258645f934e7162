/**
 * The overview charts' grouping: requests refused before routing are one group, not
 * a model each; small shares are grouped as "other"; counts are not smoothed; hourly labels over
 * several days carry the date.
 */

import type { UsageOverview } from '@contracts/console-api.ts';
import { describe, expect, it } from 'vitest';
import { formatBucket } from '../lib/format.ts';
import { modelColors } from './colors.ts';
import {
  modelGroups,
  OTHER,
  REFUSED,
  shareOption,
  shareRows,
  stackByModel,
  timeSeriesOption,
  topKeysOption,
} from './options.ts';

type ModelRow = UsageOverview['by_model'][number];
const row = (model: string, calls: number, tokens: number, refused = 0): ModelRow => ({
  model,
  calls,
  errors: refused,
  prompt_tokens: tokens,
  completion_tokens: 0,
  total_tokens: tokens,
  cost_usd: 0,
  unpriced_requests: 0,
  refused_requests: refused,
});

const byModel = [
  row('gpt-4o-mini', 500, 90_000, 3),
  row('claude-sonnet-4-5', 300, 50_000),
  row('tiny-a', 2, 100),
  row('tiny-b', 1, 50),
  row('no-such-model-0', 4, 0, 4),
  row('no-such-model-1', 3, 0, 3),
  row('', 2, 0, 2),
];

describe('grouping the models of the overview charts', () => {
  it('puts models whose every request was refused before routing into one group, and keeps served ones', () => {
    const groupOf = modelGroups(byModel, 'calls');
    expect(['no-such-model-0', 'no-such-model-1', ''].map(groupOf)).toEqual([REFUSED, REFUSED, REFUSED]);
    expect(groupOf('gpt-4o-mini')).toBe('gpt-4o-mini');
    expect(groupOf('claude-sonnet-4-5')).toBe('claude-sonnet-4-5');
  });

  it('groups two or more small shares as other, but leaves a single small one as it is', () => {
    expect(['tiny-a', 'tiny-b'].map(modelGroups(byModel, 'total_tokens'))).toEqual([OTHER, OTHER]);
    const oneSmall = byModel.filter((model) => model.model !== 'tiny-b');
    expect(modelGroups(oneSmall, 'total_tokens')('tiny-a')).toBe('tiny-a');
  });

  it('stacks the refused group once, last, and leaves it out of the share of served traffic', () => {
    const series = byModel.map((model) => ({ ...model, bucket: '2026-11-25T16:00:00.000Z' }));
    const stacked = stackByModel(series, ['2026-11-25T16:00:00.000Z'], 'calls', modelGroups(byModel, 'calls'));
    expect(stacked.models).toEqual(['gpt-4o-mini', 'claude-sonnet-4-5', OTHER, REFUSED]);
    expect(stacked.values[REFUSED]).toEqual([9]);
    expect(stacked.values[OTHER]).toEqual([3]);
    const tokens = stackByModel(
      series,
      ['2026-11-25T16:00:00.000Z'],
      'total_tokens',
      modelGroups(byModel, 'total_tokens'),
    );
    expect(tokens.models).not.toContain(REFUSED);
    const share = shareRows(byModel, 'calls', modelGroups(byModel, 'calls'));
    expect(share.map((entry) => entry.group)).toEqual(['gpt-4o-mini', 'claude-sonnet-4-5', OTHER]);
  });

  it('draws counts without smoothing and with a legend that does not page', () => {
    const stacked = stackByModel([], ['2026-11-25T16:00:00.000Z'], 'total_tokens');
    stacked.models.push('m');
    stacked.values['m'] = [0];
    const option = timeSeriesOption(stacked, 'line', String, String) as {
      legend: { type: string };
      series: Array<{ smooth: boolean }>;
    };
    expect(option.legend.type).toBe('plain');
    expect(option.series[0]!.smooth).toBe(false);
  });

  it('labels hours with their date when the range spans days, in the overview’s zone', () => {
    const hour = '2026-11-25T17:23:00.000Z';
    expect(formatBucket(hour, 'hour', 'en-US', 'Asia/Shanghai', true)).toBe('Nov 26, 01:23 AM');
    expect(formatBucket(hour, 'day', 'en-US', 'UTC')).toBe('Nov 25');
    expect(formatBucket(hour, 'day', 'en-US', 'Asia/Shanghai')).toBe('Nov 26');
  });

  it('puts each top key’s value on its bar, and drops axis labels that would overlap', () => {
    const option = topKeysOption(
      [
        { label: 'busy', value: 0.000277 },
        { label: 'old (revoked)', value: 0.0001 },
      ],
      (value) => `$${value}`,
    ) as {
      xAxis: { axisLabel: { hideOverlap: boolean } };
      yAxis: { data: string[] };
      series: Array<{ label: { show: boolean; formatter: (item: { value: unknown }) => string } }>;
    };
    expect(option.yAxis.data).toEqual(['old (revoked)', 'busy']);
    expect(option.series[0]!.label.show).toBe(true);
    expect(option.series[0]!.label.formatter({ value: 0.000277 })).toBe('$0.000277');
    expect(option.xAxis.axisLabel.hideOverlap).toBe(true);
  });
});

describe('one model, one colour', () => {
  type Colored = {
    series: Array<{
      name: string;
      itemStyle: { color: string };
      data: Array<{ name: string; itemStyle: { color: string } }>;
    }>;
  };
  const bucket = '2026-11-25T16:00:00.000Z';
  const series = byModel.map((model) => ({ ...model, bucket }));
  const colorOf = modelColors(byModel.map((model) => model.model));

  it('gives a model the same colour in the calls, tokens, share and spend charts, whatever its rank', () => {
    const calls = timeSeriesOption(
      stackByModel(series, [bucket], 'calls', modelGroups(byModel, 'calls')),
      'bar',
      String,
      String,
      String,
      colorOf,
    ) as unknown as Colored;
    const tokens = timeSeriesOption(
      stackByModel(series, [bucket], 'total_tokens', modelGroups(byModel, 'total_tokens')),
      'line',
      String,
      String,
      String,
      colorOf,
    ) as unknown as Colored;
    // Spend ranks claude first: its colour must not become the first colour.
    const spend = shareOption(
      [
        { label: 'claude-sonnet-4-5', value: 2, color: colorOf('claude-sonnet-4-5') },
        { label: 'gpt-4o-mini', value: 1, color: colorOf('gpt-4o-mini') },
      ],
      String,
    ) as unknown as Colored;
    const seriesColor = (option: Colored, name: string) =>
      option.series.find((each) => each.name === name)!.itemStyle.color;
    const sliceColor = (option: Colored, name: string) =>
      option.series[0]!.data.find((slice) => slice.name === name)!.itemStyle.color;
    for (const model of ['gpt-4o-mini', 'claude-sonnet-4-5']) {
      expect(seriesColor(calls, model)).toBe(colorOf(model));
      expect(seriesColor(tokens, model)).toBe(colorOf(model));
      expect(sliceColor(spend, model)).toBe(colorOf(model));
    }
    expect(colorOf('gpt-4o-mini')).not.toBe(colorOf('claude-sonnet-4-5'));
  });

  it('keeps a model’s colour when other models come and go, and never lends it to another model', () => {
    const alone = modelColors(['claude-sonnet-4-5']);
    expect(alone('claude-sonnet-4-5')).toBe(colorOf('claude-sonnet-4-5'));
    const many = Array.from({ length: 9 }, (_, index) => `model-${index}`);
    const colors = many.map(modelColors(many));
    expect(new Set(colors).size).toBe(9);
    expect(colors).not.toContain(colorOf(OTHER));
    expect(colors).not.toContain(colorOf(REFUSED));
  });
});

describe('charts on a narrow screen', () => {
  it('names the donut’s slices in a legend instead of labels that shrink to “g…”', () => {
    const rows = [{ label: 'gpt-4o-mini', value: 3, color: '#000' }];
    const wide = shareOption(rows, String) as {
      legend: { show: boolean };
      series: Array<{ label: { show: boolean } }>;
    };
    const narrow = shareOption(rows, String, { narrow: true }) as typeof wide;
    expect(wide.series[0]!.label.show).toBe(true);
    expect(narrow.series[0]!.label.show).toBe(false);
    expect(narrow.legend.show).toBe(true);
  });

  it('keeps the last time label inside the chart', () => {
    const stacked = stackByModel([], [hourOf(0), hourOf(1)], 'calls');
    const option = timeSeriesOption(stacked, 'line', String, String) as {
      xAxis: { axisLabel: { alignMaxLabel: string; alignMinLabel: string } };
    };
    expect(option.xAxis.axisLabel.alignMaxLabel).toBe('right');
    expect(option.xAxis.axisLabel.alignMinLabel).toBe('left');
  });
});

function hourOf(hour: number): string {
  return new Date(Date.UTC(2026, 10, 25, hour)).toISOString();
}
