/**
 * @module bench/report-figures
 * Reading one run's results: a target's figures by id and format, and the figures it adds to the
 * upstream's.
 */
import type { BenchResults, Format, FormatResult, TargetResult } from './report.ts';

export function byId(bench: BenchResults, id: string): TargetResult | undefined {
  return bench.targets.find((target) => target.id === id && target.status === 'ok');
}

export function formatOf(bench: BenchResults, id: string, format: Format): FormatResult | undefined {
  return byId(bench, id)?.formats[format];
}

/**
 * Figures of one target minus the upstream's: the direct requests interleaved with the target's at c=1
 * when there are any, else the upstream's own row of this run.
 */
export function added(bench: BenchResults, result: FormatResult, format: Format) {
  const row = formatOf(bench, 'upstream', format);
  const latency = result.latency.baseline ?? row?.latency;
  const stream = result.stream.baseline ?? row?.stream;
  const minus = (value: number, base: number | undefined) => (base === undefined ? Number.NaN : value - base);
  return {
    p50: minus(result.latency.p50, latency?.p50),
    p99: minus(result.latency.p99, latency?.p99),
    ttft50: minus(result.stream.ttft.p50, stream?.ttft.p50),
    ttft99: minus(result.stream.ttft.p99, stream?.ttft.p99),
    gap50: minus(result.stream.gap.p50, stream?.gap.p50),
    gap99: minus(result.stream.gap.p99, stream?.gap.p99),
  };
}

export function measured(bench: BenchResults, format: Format): Array<[TargetResult, FormatResult]> {
  return bench.targets
    .filter((target) => target.status === 'ok' && target.formats[format])
    .map((target) => [target, target.formats[format]!]);
}
