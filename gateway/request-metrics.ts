/**
 * @module gateway/request-metrics
 * The per-request series (requests, duration, time to first token, tokens, cost), counted in plain fields
 * and handed to prom-client's registry only when it is scraped. prom-client validates and hashes the
 * label values on every `inc` and `observe`, even through a kept child, and leaves garbage per request
 * (docs/performance.md, "Small choices on the hot path"), against a few additions here. The exposition
 * is prom-client's own (its registry formats what `get()` returns), so `/metrics` reads the same as with
 * its classes.
 */
import type { Registry } from 'prom-client';

type Labels = Record<string, string>;

interface MetricValue {
  labels: Labels;
  value: number;
  metricName?: string;
}

/** Counts of one histogram series: `buckets[i]` holds the values in (bounds[i-1], bounds[i]]. */
class HistogramCounts {
  readonly bounds: readonly number[];
  readonly buckets: Float64Array;
  sum = 0;
  count = 0;

  constructor(bounds: readonly number[]) {
    this.bounds = bounds;
    this.buckets = new Float64Array(bounds.length);
  }

  observe(value: number): void {
    this.sum += value;
    this.count++;
    for (let index = 0; index < this.bounds.length; index++) {
      if (value <= this.bounds[index]!) {
        this.buckets[index]!++;
        return;
      }
    }
  }
}

/** One combination of label values and everything counted under it. */
export class RequestSeries {
  readonly labels: Labels;
  requests = 0;
  promptTokens = 0;
  completionTokens = 0;
  /** the priced requests' cost, in nano-dollars (exact; shown in USD) */
  costNanoUsd = 0;
  readonly duration: HistogramCounts;
  readonly timeToFirstToken: HistogramCounts;

  constructor(labels: Labels, durationBounds: readonly number[], firstTokenBounds: readonly number[]) {
    this.labels = labels;
    this.duration = new HistogramCounts(durationBounds);
    this.timeToFirstToken = new HistogramCounts(firstTokenBounds);
  }
}

/** A metric the registry formats from `get()`, as it does its own classes. */
interface CollectedMetric {
  name: string;
  help: string;
  type: 'counter' | 'histogram';
  aggregator: 'sum';
  get(): Promise<{ name: string; help: string; type: string; aggregator: 'sum'; values: MetricValue[] }>;
  reset(): void;
}

function collected(
  name: string,
  help: string,
  type: 'counter' | 'histogram',
  values: () => MetricValue[],
  reset: () => void,
): CollectedMetric {
  return {
    name,
    help,
    type,
    aggregator: 'sum',
    get: async () => ({ name, help, type, aggregator: 'sum', values: values() }),
    reset,
  };
}

/** The histogram's lines of one series, cumulative as Prometheus wants them. */
function histogramValues(name: string, series: RequestSeries, counts: HistogramCounts) {
  const values: MetricValue[] = [];
  let cumulative = 0;
  counts.bounds.forEach((bound, index) => {
    cumulative += counts.buckets[index]!;
    values.push({ labels: { le: String(bound), ...series.labels }, value: cumulative, metricName: `${name}_bucket` });
  });
  values.push({ labels: { le: '+Inf', ...series.labels }, value: counts.count, metricName: `${name}_bucket` });
  values.push({ labels: series.labels, value: counts.sum, metricName: `${name}_sum` });
  values.push({ labels: series.labels, value: counts.count, metricName: `${name}_count` });
  return values;
}

/** Tokens are counted by endpoint, model and channel (not by status) and kind, as in the series. */
function tokenValues(all: RequestSeries[]): MetricValue[] {
  const sums = new Map<string, { labels: Labels; prompt: number; completion: number }>();
  for (const series of all) {
    const { endpoint, model, channel } = series.labels as { endpoint: string; model: string; channel: string };
    const key = `${endpoint}\u0000${model}\u0000${channel}`;
    let sum = sums.get(key);
    if (!sum) {
      sum = { labels: { endpoint, model, channel }, prompt: 0, completion: 0 };
      sums.set(key, sum);
    }
    sum.prompt += series.promptTokens;
    sum.completion += series.completionTokens;
  }
  const values: MetricValue[] = [];
  for (const { labels, prompt, completion } of sums.values()) {
    if (prompt > 0) values.push({ labels: { ...labels, kind: 'prompt' }, value: prompt });
    if (completion > 0) values.push({ labels: { ...labels, kind: 'completion' }, value: completion });
  }
  return values;
}

/** Cost by endpoint, model and channel, in USD: the unpriced requests add nothing. */
function costValues(all: RequestSeries[]): MetricValue[] {
  const sums = new Map<string, { labels: Labels; nano: number }>();
  for (const series of all) {
    if (series.costNanoUsd === 0) continue;
    const { endpoint, model, channel } = series.labels as { endpoint: string; model: string; channel: string };
    const key = `${endpoint}\u0000${model}\u0000${channel}`;
    const sum = sums.get(key) ?? { labels: { endpoint, model, channel }, nano: 0 };
    sum.nano += series.costNanoUsd;
    sums.set(key, sum);
  }
  return [...sums.values()].map(({ labels, nano }) => ({ labels, value: nano / 1e9 }));
}

export interface RequestMetricNames {
  requests: { name: string; help: string };
  duration: { name: string; help: string; buckets: readonly number[] };
  timeToFirstToken: { name: string; help: string; buckets: readonly number[] };
  tokens: { name: string; help: string };
  cost: { name: string; help: string };
}

/** The series by label combination, and their registration as five metrics of a registry. */
export class RequestSeriesTable {
  readonly #series = new Map<string, RequestSeries>();
  readonly #names: RequestMetricNames;

  constructor(names: RequestMetricNames, registry: Registry) {
    this.#names = names;
    const all = () => [...this.#series.values()];
    const clear = () => this.#series.clear();
    const metrics = [
      collected(
        names.requests.name,
        names.requests.help,
        'counter',
        () => all().map((series) => ({ labels: series.labels, value: series.requests })),
        clear,
      ),
      collected(
        names.duration.name,
        names.duration.help,
        'histogram',
        () => all().flatMap((series) => histogramValues(names.duration.name, series, series.duration)),
        clear,
      ),
      collected(
        names.timeToFirstToken.name,
        names.timeToFirstToken.help,
        'histogram',
        () =>
          all()
            .filter((series) => series.timeToFirstToken.count > 0)
            .flatMap((series) => histogramValues(names.timeToFirstToken.name, series, series.timeToFirstToken)),
        clear,
      ),
      collected(names.tokens.name, names.tokens.help, 'counter', () => tokenValues(all()), clear),
      collected(names.cost.name, names.cost.help, 'counter', () => costValues(all()), clear),
    ];
    // The registry takes any object that answers `get()` the way its own metric classes do.
    for (const metric of metrics)
      registry.registerMetric(metric as unknown as Parameters<Registry['registerMetric']>[0]);
  }

  /** The series of one label combination (the combinations are bounded: see metrics.ts). */
  of(endpoint: string, model: string, channel: string, status: string): RequestSeries {
    const key = `${endpoint}\u0000${model}\u0000${channel}\u0000${status}`;
    let series = this.#series.get(key);
    if (!series) {
      series = new RequestSeries(
        { endpoint, model, channel, status },
        this.#names.duration.buckets,
        this.#names.timeToFirstToken.buckets,
      );
      this.#series.set(key, series);
    }
    return series;
  }
}
