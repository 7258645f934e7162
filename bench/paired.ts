/**
 * @module bench/paired
 * Throughput ratios that a busy moment of the machine cannot tip: the gateway and one other target
 * run side by side, and short c=64 windows alternate between them (gateway, other, gateway, other…),
 * each pair giving one ratio (which of the two goes first alternates as well). The ratio reported is
 * the median of the pairs. Measured one after the other for ten seconds each, the same two targets
 * gave ratios 25% apart from one run to the next on this shared machine; alternating windows put both
 * sides of every pair in the same minute.
 */
import { closedLoop } from './load.ts';
import { treeCpuMs } from './processes.ts';
import type { BenchContext, RunningTarget, Target } from './targets.ts';
import { requestShape } from './targets.ts';

export interface PairedPlan {
  rounds: number;
  windowMs: number;
  /** load before each window, not measured: every window then measures a target already under load */
  windowWarmupMs: number;
  /** load on each target once, after both started */
  warmupMs: number;
  concurrency: number;
}

export interface PairedResult {
  /** the other target's id */
  against: string;
  /** req/s of each window, in round order */
  gateway: number[];
  other: number[];
  /** median of the per-round ratios gateway / other */
  ratio: number;
  errors: number;
  /** the windows' length and the unmeasured load before each (absent in older saved results) */
  windowMs?: number;
  windowWarmupMs?: number;
  /**
   * CPU of each side's process tree over its measured windows, per request (ms), and of the processes
   * beside the other target (RunningTarget.companions: a cluster node's projector and servers) over the
   * other's windows, per request of the other (absent in older saved results)
   */
  cpu?: { gateway: number; other: number; otherCompanions: Record<string, number> };
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Starts both targets, alternates windows between them, stops both. */
export async function pairedThroughput(
  gatewayTarget: Target,
  otherTarget: Target,
  context: BenchContext,
  plan: PairedPlan,
): Promise<PairedResult> {
  const started: RunningTarget[] = [];
  try {
    const gateway = await gatewayTarget.start(context);
    started.push(gateway);
    const other = await otherTarget.start(context);
    started.push(other);
    const shapes = [requestShape(gateway, 'openai', false), requestShape(other, 'openai', false)] as const;
    for (const shape of shapes) {
      await closedLoop(shape, { concurrency: plan.concurrency, durationMs: plan.warmupMs, warmupMs: 0 });
    }
    const result: PairedResult = {
      against: otherTarget.id,
      gateway: [],
      other: [],
      ratio: Number.NaN,
      errors: 0,
      windowMs: plan.windowMs,
      windowWarmupMs: plan.windowWarmupMs,
    };
    const companions = other.companions ?? [];
    const cpuMs = [0, 0];
    const requests = [0, 0];
    const companionsMs = companions.map(() => 0);
    for (let round = 0; round < plan.rounds; round++) {
      // Which goes first alternates too, so a drifting machine favours neither.
      for (const index of round % 2 === 0 ? [0, 1] : [1, 0]) {
        const shape = shapes[index]!;
        const pid = started[index]!.pid;
        // The target sat idle through the other's window: its connections, heap and caches get a
        // moment under load before the window counts, as the one-after-the-other runs get 5 s.
        let before = 0;
        let companionsBefore: number[] = [];
        // CPU is read when the window starts counting, after its unmeasured load.
        const mark = setTimeout(() => {
          before = treeCpuMs(pid);
          if (index === 1) companionsBefore = companions.map((companion) => treeCpuMs(companion.pid));
        }, plan.windowWarmupMs);
        const window = await closedLoop(shape, {
          concurrency: plan.concurrency,
          durationMs: plan.windowMs,
          warmupMs: plan.windowWarmupMs,
        });
        clearTimeout(mark);
        cpuMs[index]! += treeCpuMs(pid) - before;
        requests[index]! += window.requests;
        for (const [position, value] of companionsBefore.entries()) {
          companionsMs[position]! += treeCpuMs(companions[position]!.pid) - value;
        }
        result.errors += window.errors;
        (index === 0 ? result.gateway : result.other)[round] = window.rps;
      }
    }
    result.ratio = median(result.gateway.map((rps, round) => rps / result.other[round]!));
    result.cpu = {
      gateway: cpuMs[0]! / requests[0]!,
      other: cpuMs[1]! / requests[1]!,
      otherCompanions: Object.fromEntries(
        companions.map(({ name }, position) => [name, companionsMs[position]! / requests[1]!]),
      ),
    };
    return result;
  } finally {
    for (const running of started.reverse()) await running.stop();
  }
}

/**
 * The cluster node's projector, ClickHouse and Kafka finish a window's work after it (a projector write
 * starts at most every second): in 3 s windows much of that spills into the embedded node's next
 * window and flatters the cluster. Fewer, longer windows keep most of each one's work inside it.
 */
function planFor(otherId: string, plan: PairedPlan): PairedPlan {
  if (otherId !== 'gateway-cluster') return plan;
  return {
    ...plan,
    rounds: 3,
    windowMs: Math.max(plan.windowMs, 10_000),
    windowWarmupMs: Math.max(plan.windowWarmupMs, 3_000),
  };
}

/** The gateway against the ceiling and each peer measured ok in this run; failures go to `errors`. */
export async function measurePaired(
  targets: Target[],
  results: ReadonlyArray<{ id: string; status: string }>,
  context: BenchContext,
  plan: PairedPlan,
  log: (message: string) => void,
  errors: string[],
): Promise<PairedResult[]> {
  const ok = (id: string) => results.some((result) => result.id === id && result.status === 'ok');
  const gateway = targets.find((target) => target.id === 'gateway');
  if (!gateway || !ok('gateway')) return [];
  const paired: PairedResult[] = [];
  for (const other of targets.filter((target) =>
    ['ceiling', 'gateway-cluster', 'portkey', 'litellm'].includes(target.id),
  )) {
    if (!ok(other.id)) continue;
    log(
      `paired: gateway and ${other.label}, ${planFor(other.id, plan).rounds} rounds of ${planFor(other.id, plan).windowMs / 1000} s windows`,
    );
    try {
      const result = await pairedThroughput(gateway, other, context, planFor(other.id, plan));
      log(
        `  ratio ${result.ratio.toFixed(2)} (gateway ${result.gateway.map((rps) => rps.toFixed(0)).join(', ')}; ${other.label} ${result.other.map((rps) => rps.toFixed(0)).join(', ')})`,
      );
      paired.push(result);
      if (result.errors > 0) errors.push(`paired with ${other.label}: ${result.errors} failed requests`);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      log(`paired with ${other.label}: FAILED: ${message}`);
      if (other.role !== 'peer') errors.push(`paired with ${other.label}: ${message}`);
    }
  }
  return paired;
}
