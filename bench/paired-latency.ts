/**
 * @module bench/paired-latency
 * Added latency at c=1 that one busy moment cannot set: each gateway mode runs beside the Node ceiling,
 * and short c=1 windows alternate between them (which goes first alternates too). Every request of a
 * window follows the same request sent straight to the upstream, so each window gives an added p50 and
 * p99 of its own; the figure is the median of the windows. A single 5 s window per target, minutes
 * apart from the ceiling's, moved by more than the limits themselves from one run to the next on this
 * shared machine (docs/performance.md, "Added latency in alternating windows").
 *
 * The embedded node's rounds also alternate c=1 stream windows, each stream after the same one sent
 * straight to the upstream, for the added time to first token: one 8 s window per target, minutes
 * apart, read the ceiling's own added figure anywhere from 0.43 to 1.17 ms across runs.
 */
import { type Placement, place, separatedPlacement } from './cpu-placement.ts';
import { closedLoop, streamLoop } from './load.ts';
import { median } from './paired.ts';
import type { BenchContext, RunningTarget, Target } from './targets.ts';
import { requestShape } from './targets.ts';

export interface LatencyPairPlan {
  rounds: number;
  windowMs: number;
  /** c=1 load before each window, not measured */
  windowWarmupMs: number;
  /** c=1 load on each target once, after both started */
  warmupMs: number;
  /**
   * A pause after each of the cluster node's windows: its projector writes what the window sent up to
   * a second later, and that write must not fall into the ceiling's next window.
   */
  clusterSettleMs: number;
  /** each round's c=1 stream window for the time to first token (embedded node only; 0: none) */
  streamWindowMs: number;
  streamWindowWarmupMs: number;
}

/** Added figures (ms) of one target's windows, in round order. */
export interface AddedWindows {
  p50: number[];
  p99: number[];
  /** the added time to first token's p50 of each stream window, where the pairing has them */
  ttft50?: number[];
}

export interface PairedLatencyResult {
  /** the gateway mode's target id: gateway or gateway-cluster */
  target: string;
  gateway: AddedWindows;
  ceiling: AddedWindows;
  windowMs: number;
  /** requests measured in the gateway's windows, and those that failed */
  requests: number;
  errors: number;
  /**
   * The cluster node's windows, in the same rounds, with its servers on CPUs of their own and the
   * request's path on the others (cpu-placement.ts), as a deployment keeps them apart; absent on a
   * machine of one CPU. The figures above are those of every process sharing every CPU.
   */
  separated?: { gateway: AddedWindows; ceiling: AddedWindows; requestPath: string; servers: string };
}

export function medianAdded(windows: AddedWindows): { p50: number; p99: number } {
  return { p50: median(windows.p50), p99: median(windows.p99) };
}

/** Every process on every CPU, or the servers apart from the request's path. */
type Arrangement = 'shared' | 'separated';

function arrange(arrangement: Arrangement, placement: Placement, servers: number[], requestPath: number[]): void {
  const apart = arrangement === 'separated';
  place(servers, apart ? placement.servers : placement.all);
  place(requestPath, apart ? placement.requestPath : placement.all);
  // The load generator runs in this process; its children are the targets, placed above.
  place([process.pid], apart ? placement.requestPath : placement.all, false);
}

async function window(target: RunningTarget, direct: RunningTarget, plan: LatencyPairPlan) {
  const result = await closedLoop(requestShape(target, 'openai', false), {
    concurrency: 1,
    durationMs: plan.windowMs,
    warmupMs: plan.windowWarmupMs,
    baseline: requestShape(direct, 'openai', false),
  });
  const baseline = result.baseline!;
  return { p50: result.p50 - baseline.p50, p99: result.p99 - baseline.p99, result };
}

async function streamWindow(target: RunningTarget, direct: RunningTarget, plan: LatencyPairPlan) {
  const result = await streamLoop(requestShape(target, 'openai', true), {
    concurrency: 1,
    durationMs: plan.streamWindowMs,
    warmupMs: plan.streamWindowWarmupMs,
    baseline: requestShape(direct, 'openai', true),
  });
  return { ttft50: result.ttft.p50 - result.baseline!.ttft.p50, streams: result.streams, errors: result.errors };
}

/** Starts the mode and the ceiling, alternates c=1 windows between them, stops both. */
export async function pairedLatency(
  gatewayTarget: Target,
  ceilingTarget: Target,
  direct: RunningTarget,
  context: BenchContext,
  plan: LatencyPairPlan,
): Promise<PairedLatencyResult> {
  const started: RunningTarget[] = [];
  try {
    started.push(await gatewayTarget.start(context));
    started.push(await ceilingTarget.start(context));
    for (const running of started) {
      await closedLoop(requestShape(running, 'openai', false), {
        concurrency: 1,
        durationMs: plan.warmupMs,
        warmupMs: 0,
      });
    }
    const result: PairedLatencyResult = {
      target: gatewayTarget.id,
      gateway: { p50: [], p99: [] },
      ceiling: { p50: [], p99: [] },
      windowMs: plan.windowMs,
      requests: 0,
      errors: 0,
    };
    const isCluster = gatewayTarget.id === 'gateway-cluster';
    const servers = (started[0]!.companions ?? []).map(({ pid }) => pid);
    const placement = isCluster && servers.length > 0 ? separatedPlacement() : null;
    const requestPath = [direct.pid, ...started.map((running) => running.pid)];
    const arrangements: Arrangement[] = ['shared'];
    if (placement) {
      const empty = (): AddedWindows => ({ p50: [], p99: [] });
      result.separated = {
        gateway: empty(),
        ceiling: empty(),
        requestPath: placement.requestPath,
        servers: placement.servers,
      };
      arrangements.push('separated');
    }
    const settleMs = isCluster ? plan.clusterSettleMs : 0;
    const streams = !isCluster && plan.streamWindowMs > 0;
    if (streams) {
      result.gateway.ttft50 = [];
      result.ceiling.ttft50 = [];
    }
    try {
      for (let round = 0; round < plan.rounds; round++) {
        for (const arrangement of round % 2 === 0 ? arrangements : [...arrangements].reverse()) {
          if (placement) arrange(arrangement, placement, servers, requestPath);
          const windows = arrangement === 'separated' ? result.separated! : result;
          for (const index of round % 2 === 0 ? [0, 1] : [1, 0]) {
            const measured = await window(started[index]!, direct, plan);
            const side = index === 0 ? windows.gateway : windows.ceiling;
            side.p50.push(measured.p50);
            side.p99.push(measured.p99);
            if (index === 0) {
              result.requests += measured.result.requests;
              result.errors += measured.result.errors;
              if (settleMs > 0) await new Promise((resolve) => setTimeout(resolve, settleMs));
            }
          }
        }
        if (!streams) continue;
        for (const index of round % 2 === 0 ? [1, 0] : [0, 1]) {
          const measured = await streamWindow(started[index]!, direct, plan);
          (index === 0 ? result.gateway : result.ceiling).ttft50!.push(measured.ttft50);
          if (index === 0) {
            result.requests += measured.streams;
            result.errors += measured.errors;
          }
        }
      }
    } finally {
      if (placement) arrange('shared', placement, servers, requestPath);
    }
    return result;
  } finally {
    for (const running of started.reverse()) await running.stop();
  }
}

/** Each gateway mode measured ok in this run against the ceiling; failures go to `errors`. */
export async function measurePairedLatency(
  targets: Target[],
  results: ReadonlyArray<{ id: string; status: string }>,
  direct: RunningTarget,
  context: BenchContext,
  plan: LatencyPairPlan,
  log: (message: string) => void,
  errors: string[],
): Promise<PairedLatencyResult[]> {
  const ok = (id: string) => results.some((result) => result.id === id && result.status === 'ok');
  const ceiling = targets.find((target) => target.id === 'ceiling');
  if (!ceiling || !ok('ceiling')) return [];
  const measured: PairedLatencyResult[] = [];
  for (const target of targets.filter((candidate) => ['gateway', 'gateway-cluster'].includes(candidate.id))) {
    if (!ok(target.id)) continue;
    log(
      `paired latency: ${target.label} and the Node ceiling, ${plan.rounds} rounds of ${plan.windowMs / 1000} s c=1 windows`,
    );
    try {
      const result = await pairedLatency(target, ceiling, direct, context, plan);
      const gateway = medianAdded(result.gateway);
      const reference = medianAdded(result.ceiling);
      log(
        `  added p50 ${gateway.p50.toFixed(2)} ms, p99 ${gateway.p99.toFixed(2)} ms (the ceiling: ${reference.p50.toFixed(2)}, ${reference.p99.toFixed(2)}), ${result.errors} failed`,
      );
      if (result.gateway.ttft50?.length) {
        log(
          `  added time to first token ${median(result.gateway.ttft50).toFixed(2)} ms (the ceiling: ${median(result.ceiling.ttft50 ?? []).toFixed(2)})`,
        );
      }
      if (result.separated) {
        const apart = medianAdded(result.separated.gateway);
        const ceilingApart = medianAdded(result.separated.ceiling);
        log(
          `  its servers on CPU ${result.separated.servers}, the request's path on ${result.separated.requestPath}: added p50 ${apart.p50.toFixed(2)} ms, p99 ${apart.p99.toFixed(2)} ms (the ceiling: ${ceilingApart.p50.toFixed(2)}, ${ceilingApart.p99.toFixed(2)})`,
        );
      }
      measured.push(result);
      if (result.errors > 0) errors.push(`paired latency of ${target.label}: ${result.errors} failed requests`);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      log(`paired latency of ${target.label}: FAILED: ${message}`);
      errors.push(`paired latency of ${target.label}: ${message}`);
    }
  }
  return measured;
}
