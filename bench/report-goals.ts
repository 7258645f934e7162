/**
 * @module bench/report-goals
 * The project's targets judged on one run: throughput ratios from alternating windows, added latency in
 * both modes, memory in both modes, the cluster node against the embedded one (CPU and goodput, with
 * what Kafka, ClickHouse, Redis and the projector spent beside it), then the sustained phase and the
 * pipeline, with the time-to-first-token and LiteLLM rows beside them.
 */
import { median, type PairedResult } from './paired.ts';
import type { AddedWindows, PairedLatencyResult } from './paired-latency.ts';
import type { BenchResults, Goal } from './report.ts';
import { added, formatOf } from './report-figures.ts';
import { pipelineGoals } from './report-pipeline.ts';
import { sustainedGoals } from './report-sustained.ts';
import { fixed, whole } from './report-text.ts';

const NOT_MEASURED = 'not measured in this run';

const MODES = [
  { id: 'gateway', label: 'embedded' },
  { id: 'gateway-cluster', label: 'cluster' },
] as const;

function ratioGoal(bench: BenchResults, peerId: string, label: string, factor: number): Goal {
  const goal = `throughput ≥ ${factor} × ${label}`;
  const gateway = formatOf(bench, 'gateway', 'openai');
  const peer = formatOf(bench, peerId, 'openai');
  if (!gateway || !peer) return { goal, measured: NOT_MEASURED, met: null };
  const single = gateway.throughput.rps / peer.throughput.rps;
  const alternating = bench.paired?.find((result) => result.against === peerId);
  const value = alternating ? alternating.ratio : single;
  const failed = alternating ? alternating.errors : gateway.throughput.errors;
  return {
    goal,
    measured: alternating
      ? `${value.toFixed(2)} × (median of ${alternating.gateway.length} alternating pairs of windows, ${failed} failed; ${single.toFixed(2)} × from the one-after-the-other runs below: ${whole(gateway.throughput.rps)} vs ${whole(peer.throughput.rps)} req/s)`
      : `${value.toFixed(2)} × (${whole(gateway.throughput.rps)} vs ${whole(peer.throughput.rps)} req/s)`,
    met: value >= factor && failed === 0,
  };
}

function limitGoal(goal: string, value: number | undefined, limit: number, unit: string): Goal {
  const known = value !== undefined && !Number.isNaN(value);
  return { goal, measured: known ? `${value.toFixed(2)} ${unit}` : NOT_MEASURED, met: known ? value <= limit : null };
}

type AddedFigure = keyof ReturnType<typeof added>;

/**
 * The added p50 or p99 at c=1, or the added time to first token, from the windows alternating with
 * the ceiling's, with the ceiling's own median of the same pairing and the single window of the
 * one-after-the-other runs beside it.
 */
function pairedLatencyGoal(
  name: string,
  limit: number,
  figure: keyof AddedWindows,
  pairing: PairedLatencyResult,
  single: number | undefined,
): Goal {
  const kind = figure === 'ttft50' ? 'c=1 stream windows' : 'c=1 windows';
  const windowsText = (gateway: AddedWindows, ceiling: AddedWindows) => {
    const windows = gateway[figure] ?? [];
    const range = `${fixed(Math.min(...windows))}–${fixed(Math.max(...windows))}`;
    const value = median(windows);
    return {
      value,
      text: `${fixed(value)} ms (median of ${windows.length} ${kind} alternating with the Node ceiling's, ${range}) (the Node ceiling in the same pairing: ${fixed(median(ceiling[figure] ?? []))} ms)`,
    };
  };
  const shared = windowsText(pairing.gateway, pairing.ceiling);
  const alone = single === undefined || Number.isNaN(single) ? '' : `; ${fixed(single)} ms in the one window below`;
  const failed = `${pairing.errors} failed`;
  // A cluster node is judged as it is deployed, apart from its servers; the figure with every process
  // on every CPU stays beside it (docs/performance.md, "The cluster node's servers on a core of their own").
  if (pairing.separated?.gateway[figure]?.length) {
    const { separated } = pairing;
    const apart = windowsText(separated.gateway, separated.ceiling);
    return {
      goal: `${name}, its servers on CPUs of their own`,
      measured: `${apart.text}, the servers on CPU ${separated.servers} and the request's path on CPU ${separated.requestPath}; with every process sharing every CPU: ${shared.text}; ${failed}${alone}`,
      met: apart.value <= limit && pairing.errors === 0,
    };
  }
  return {
    goal: name,
    measured: `${shared.text}; ${failed}${alone}`,
    met: shared.value <= limit && pairing.errors === 0,
  };
}

/** Added latency and memory, once per mode; latency with a bare Node proxy's own figure of the run beside it. */
function perModeGoals(bench: BenchResults): Goal[] {
  const goals: Goal[] = [];
  const results = MODES.map((mode) => ({ ...mode, result: formatOf(bench, mode.id, 'openai') }));
  // On a slow machine the ceiling can miss a latency limit too: the reader should see it.
  const ceiling = formatOf(bench, 'ceiling', 'openai');
  const ceilingAdded = ceiling ? added(bench, ceiling, 'openai') : null;
  const withCeiling = (goal: Goal, figure: AddedFigure): Goal =>
    ceilingAdded
      ? { ...goal, measured: `${goal.measured} (the Node ceiling: ${fixed(ceilingAdded[figure])} ms)` }
      : goal;
  const latency = (name: string, limit: number, figure: AddedFigure, modes = results) => {
    for (const { id, label, result } of modes) {
      const value = result ? added(bench, result, 'openai')[figure] : undefined;
      const pairing = bench.pairedLatency?.find((candidate) => candidate.target === id);
      const paired = figure === 'p50' || figure === 'p99' || figure === 'ttft50';
      if (paired && pairing?.gateway[figure]?.length) {
        goals.push(pairedLatencyGoal(`${name} (${label})`, limit, figure, pairing, value));
      } else {
        goals.push(withCeiling(limitGoal(`${name} (${label})`, value, limit, 'ms'), figure));
      }
    }
  };
  latency('added latency p50 at c=1 ≤ 0.3 ms', 0.3, 'p50');
  latency('added latency p99 at c=1 ≤ 1 ms', 1, 'p99');
  latency('added time to first token (p50) ≤ 1 ms', 1, 'ttft50', results.slice(0, 1));
  for (const { label, result } of results) {
    goals.push(
      limitGoal(
        `RSS ≤ 250 MB with ${bench.plan.holdStreams.toLocaleString('en')} concurrent streams (${label})`,
        result?.hold ? result.hold.peakRss / 1e6 : undefined,
        250,
        'MB',
      ),
    );
  }
  return goals;
}

const microseconds = (milliseconds: number | undefined) =>
  milliseconds === undefined || Number.isNaN(milliseconds) ? '–' : `${Math.round(milliseconds * 1000)} µs`;

function companionsText(companions: Record<string, number> | undefined): string {
  const entries = Object.entries(companions ?? {});
  if (entries.length === 0) return 'the servers’ CPU was not measured (no pid files under SERVICES_DIR)';
  const total = entries.reduce((sum, [, value]) => sum + value, 0);
  return `beside it per request: ${entries.map(([name, value]) => `${name} ${microseconds(value)}`).join(', ')} (${microseconds(total)} in all)`;
}

/** The cluster node against the embedded one, from the alternating windows when the run has them. */
function clusterGoals(bench: BenchResults): Goal[] {
  const embedded = formatOf(bench, 'gateway', 'openai');
  const cluster = formatOf(bench, 'gateway-cluster', 'openai');
  const paired: PairedResult | undefined = bench.paired?.find((result) => result.against === 'gateway-cluster');
  const cpuGoal = 'cluster node CPU per request ≤ 1.15 × the embedded node’s';
  const goodputGoal = 'cluster c=64 goodput ≥ 0.8 × embedded, servers on the same machine';
  if (!embedded || !cluster) {
    return [
      { goal: cpuGoal, measured: NOT_MEASURED, met: null },
      { goal: goodputGoal, measured: NOT_MEASURED, met: null },
    ];
  }
  const cpu = paired?.cpu;
  const cpuRatio = cpu
    ? cpu.other / cpu.gateway
    : cluster.throughput.cpuMsPerRequest / embedded.throughput.cpuMsPerRequest;
  const cpuSource = cpu
    ? `${microseconds(cpu.other)} vs ${microseconds(cpu.gateway)} over the alternating windows`
    : `${microseconds(cluster.throughput.cpuMsPerRequest)} vs ${microseconds(embedded.throughput.cpuMsPerRequest)} in the one-after-the-other runs`;
  const goodput = paired ? 1 / paired.ratio : cluster.throughput.rps / embedded.throughput.rps;
  const failed = paired ? paired.errors : cluster.throughput.errors;
  const goodputSource = paired
    ? `median of ${paired.gateway.length} alternating pairs of windows (cluster ${paired.other.map(whole).join(', ')}; embedded ${paired.gateway.map(whole).join(', ')} req/s), ${failed} failed`
    : `${whole(cluster.throughput.rps)} vs ${whole(embedded.throughput.rps)} req/s, one after the other`;
  return [
    {
      goal: cpuGoal,
      measured: `${fixed(cpuRatio)} × (${cpuSource}; the gateway process, all its threads)`,
      met: cpuRatio <= 1.15,
    },
    {
      goal: goodputGoal,
      measured: `${fixed(goodput)} × (${goodputSource}); ${companionsText(cpu?.otherCompanions ?? cluster.throughput.companionsCpuMsPerRequest)}`,
      met: goodput >= 0.8 && failed === 0,
    },
  ];
}

/** Nothing lost or counted twice: the overview after the sustained runs against their answers. */
function recordedGoal(bench: BenchResults): Goal {
  const goal = 'nothing lost or counted twice: the overview’s totals equal the answers (sustained runs)';
  const recorded = bench.sustained?.recorded;
  if (!recorded) return { goal, measured: NOT_MEASURED, met: null };
  const answers = recorded.answeredOk + recorded.answeredFailed;
  return {
    goal,
    measured: `${recorded.calls.toLocaleString('en')} calls, ${recorded.errors} errors, for ${recorded.answeredOk.toLocaleString('en')} 2xx and ${recorded.answeredFailed} other answers${recorded.transportErrors ? ` (${recorded.transportErrors} transport errors)` : ''}`,
    met: recorded.calls === answers && recorded.calls - recorded.errors === recorded.answeredOk,
  };
}

export function evaluateGoals(bench: BenchResults): Goal[] {
  return [
    ...sustainedGoals(bench.sustained),
    recordedGoal(bench),
    ratioGoal(bench, 'ceiling', 'the Node ceiling', 0.7),
    ratioGoal(bench, 'portkey', 'Portkey', 5),
    ratioGoal(bench, 'litellm', 'LiteLLM', 10),
    ...perModeGoals(bench),
    ...clusterGoals(bench),
    ...pipelineGoals(bench),
  ];
}
