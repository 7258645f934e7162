/**
 * The overview charts' grouping (issue 27 item 2): requests refused before routing are one group, not
 * a model each; small shares are grouped as "other"; counts are not smoothed; hourly labels over
 * several days carry the date.
 */

import type { UsageOverview } from '@contracts/console-api.ts';
import { describe, expect, it } from 'vitest';
import { formatBucket } from '../lib/format.ts';
import { modelGroups, OTHER, REFUSED, shareRows, stackByModel, timeSeriesOption, topKeysOption } from './options.ts';

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
