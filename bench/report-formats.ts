/**
 * @module bench/report-formats
 * The report's section of one request format: latency, throughput, streaming and memory per target.
 */

import type { PairedResult } from './paired.ts';
import type { BenchResults, Format } from './report.ts';
import { added, measured } from './report-figures.ts';
import { fixed, megabytes, signed, table, whole } from './report-text.ts';

export function formatSection(bench: BenchResults, format: Format): string {
  const rows = measured(bench, format);
  if (rows.length === 0) return '';
  const title =
    format === 'openai' ? 'OpenAI format (`POST /v1/chat/completions`)' : 'Anthropic format (`POST /v1/messages`)';
  const plain = table(
    [
      'target',
      'c=1 p50 ms',
      'c=1 p99 ms',
      'added p50 ms',
      'added p99 ms',
      `c=${bench.plan.concurrency} req/s`,
      `c=${bench.plan.concurrency} p50 ms`,
      `c=${bench.plan.concurrency} p99 ms`,
      'CPU ms/req',
      'of it, main thread',
      'failed',
    ],
    rows.map(([target, result]) => {
      const add = added(bench, result, format);
      return [
        target.label,
        fixed(result.latency.p50),
        fixed(result.latency.p99),
        target.id === 'upstream' ? '(base)' : signed(add.p50),
        target.id === 'upstream' ? '(base)' : signed(add.p99),
        whole(result.throughput.rps),
        fixed(result.throughput.p50),
        fixed(result.throughput.p99),
        fixed(result.throughput.cpuMsPerRequest, 3),
        fixed(result.throughput.mainThreadCpuMsPerRequest, 3),
        String(result.latency.errors + result.throughput.errors),
      ];
    }),
  );
  const streaming = table(
    [
      'target',
      'TTFT p50 ms',
      'TTFT p99 ms',
      'added TTFT p50',
      'added TTFT p99',
      'gap p50 ms',
      'gap p99 ms',
      'added gap p50',
      'added gap p99',
      'streams',
      'failed',
    ],
    rows.map(([target, result]) => {
      const add = added(bench, result, format);
      const base = target.id === 'upstream';
      return [
        target.label,
        fixed(result.stream.ttft.p50),
        fixed(result.stream.ttft.p99),
        base ? '(base)' : signed(add.ttft50),
        base ? '(base)' : signed(add.ttft99),
        fixed(result.stream.gap.p50),
        fixed(result.stream.gap.p99),
        base ? '(base)' : signed(add.gap50),
        base ? '(base)' : signed(add.gap99),
        String(result.stream.streams),
        String(result.stream.errors),
      ];
    }),
  );
  const holds = rows.filter(([, result]) => result.hold);
  const memory = holds.length
    ? table(
        ['target', 'RSS idle MB', 'RSS peak MB', 'completed', 'most open at once', 'failed', 'seconds'],
        holds.map(([target, result]) => {
          const hold = result.hold!;
          return [
            target.label,
            megabytes(hold.idleRss),
            megabytes(hold.peakRss),
            `${hold.completed} / ${hold.streams}`,
            String(hold.maxOpen),
            String(hold.errors),
            fixed(hold.seconds, 1),
          ];
        }),
      )
    : '';
  const failures = bench.targets
    .filter((target) => target.formatErrors?.[format])
    .map((target) => `- ${target.label}: ${target.formatErrors![format]}`);
  const firstErrors = rows
    .map(
      ([target, result]) =>
        [
          target,
          result.latency.firstError ??
            result.throughput.firstError ??
            result.stream.firstError ??
            result.hold?.firstError,
        ] as const,
    )
    .filter(([, error]) => error)
    .map(
      ([target, error]) => `- ${target.label}, first failure: \`${String(error).replace(/`/g, "'").slice(0, 200)}\``,
    );
  return [
    `### ${title}`,
    '',
    'Non-streamed requests:',
    '',
    plain,
    '',
    `Streamed requests, one client at a time (the upstream sends ${bench.plan.streamShape.chunks} tokens ${bench.plan.streamShape.delayMs} ms apart):`,
    '',
    streaming,
    ...(memory
      ? [
          '',
          `Memory with ${bench.plan.holdStreams.toLocaleString('en')} concurrent slow streams (${bench.plan.holdShape.chunks} tokens ${bench.plan.holdShape.delayMs} ms apart; RSS of the target's whole process tree, sampled every 100 ms):`,
          '',
          memory,
        ]
      : []),
    ...(failures.length || firstErrors.length ? ['', ...failures, ...firstErrors] : []),
    '',
  ].join('\n');
}

/** How long each window lasted, and the load before it that was not measured. */
function windowsOf(result: PairedResult): string {
  if (result.windowMs === undefined) return 'of a few seconds';
  const seconds = (ms: number) => `${ms / 1000} s`;
  return result.windowWarmupMs
    ? `of ${seconds(result.windowMs)}, each after ${seconds(result.windowWarmupMs)} of load not measured,`
    : `of ${seconds(result.windowMs)}`;
}

/** The alternating windows behind the throughput ratios, one row per pair of targets. */
/** Each side's CPU per request over its windows, and what the other's companions spent beside it. */
function cpuCell(result: PairedResult): string {
  if (!result.cpu) return '–';
  const { gateway, other, otherCompanions } = result.cpu;
  const beside = Object.entries(otherCompanions)
    .map(([name, value]) => `${name} ${whole(value * 1000)}`)
    .join(', ');
  return `${whole(gateway * 1000)} / ${whole(other * 1000)}${beside ? ` (+ ${beside})` : ''}`;
}

/** How the cluster node's pairing differs (paired.ts: planFor), when the run has it. */
function clusterPlan(paired: readonly PairedResult[]): string {
  const cluster = paired.find((result) => result.against === 'gateway-cluster');
  if (!cluster?.windowMs) return '';
  return ` The cluster node is paired in ${cluster.gateway.length} rounds of ${cluster.windowMs / 1000} s windows (each after ${(cluster.windowWarmupMs ?? 0) / 1000} s of load not measured) instead, so that its projector's, ClickHouse's and Kafka's work on a window (written at most every second) stays mostly inside it. The CPU column is each side's process tree over its measured windows, and beside the cluster node its projector and servers.`;
}

export function pairedSection(bench: BenchResults): string {
  const paired = bench.paired ?? [];
  if (paired.length === 0) return '';
  const label = (id: string) => bench.targets.find((target) => target.id === id)?.label ?? id;
  return [
    '### Throughput ratios from alternating windows',
    '',
    `The ratio targets are judged on these. The gateway and the other target ran side by side; c=64 windows ${windowsOf(paired[0]!)} alternated between them (which went first alternated too), each pair giving one ratio, and the median of the pairs is the figure. Targets measured one after the other drift with the machine (the tables below); pairs of windows a few seconds apart do not.${clusterPlan(paired)}`,
    '',
    table(
      [
        'against',
        'gateway req/s per window',
        'other req/s per window',
        'ratio per pair',
        'median ratio',
        'CPU µs/req, gateway / other (+ beside the other)',
      ],
      paired.map((result) => [
        label(result.against),
        result.gateway.map((rps) => whole(rps)).join(', '),
        result.other.map((rps) => whole(rps)).join(', '),
        result.gateway.map((rps, round) => fixed(rps / result.other[round]!)).join(', '),
        fixed(result.ratio),
        cpuCell(result),
      ]),
      [1, 2, 3],
    ),
    '',
  ].join('\n');
}
