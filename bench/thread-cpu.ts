/**
 * @module bench/thread-cpu
 * Where a target's CPU goes, thread by thread: starts the fake upstream and one target (the gateway
 * as it ships, embedded or cluster, or the Node ceiling), loads it with 64 clients, and prints the CPU
 * microseconds per request each of its threads used (from /proc/<pid>/task/<tid>/stat). The main
 * thread is the event loop; in the embedded gateway the busiest other thread is the store worker (the
 * cluster node sends to Kafka from the event loop), and the four small ones are V8's GC helpers. A
 * wall-clock profile cannot tell these apart, and on a machine with two cores shared by the load
 * generator, the upstream and the target, a thread's CPU is what throughput pays for.
 *
 * `compare` starts the embedded and the cluster gateway side by side and alternates windows between
 * them (ROUNDS, default 5), so that the target, the cluster node's CPU per request at most 1.15
 * × the embedded node's, is read from one run whose drift falls on both alike. The cluster's servers
 * (Kafka, Redis, ClickHouse: their pid files under SERVICES_DIR) are measured in its windows too.
 *
 *   npx tsx bench/thread-cpu.ts [gateway|cluster|ceiling|compare] [openai|anthropic]   (DURATION=ms, default 4000)
 *   BENCH_GATEWAY_NODE_FLAGS=... passes Node flags to the gateway (see gateway-targets.ts).
 */
import { readdirSync } from 'node:fs';
import { gatewayClusterTarget, gatewayEmbeddedTarget } from './gateway-targets.ts';
import { closedLoop } from './load.ts';
import { forkTs, servicePids, threadCpuMs, treeCpuMs } from './processes.ts';
import { type BenchContext, ceilingTarget, type RunningTarget, requestShape, type Target } from './targets.ts';

/** CPU milliseconds per thread of a process, keyed by thread id (0 for a thread that just ended). */
function threadTimes(pid: number): Map<number, number> {
  return new Map(readdirSync(`/proc/${pid}/task`).map((tid) => [Number(tid), threadCpuMs(pid, Number(tid))]));
}

const µs = (ms: number, requests: number) => ((ms / requests) * 1000).toFixed(1).padStart(6);

/** Per-thread CPU (and the servers') of a target over the windows measured so far. */
class Tally {
  readonly threads = new Map<number, number>();
  readonly services = new Map<string, number>();
  requests = 0;
  seconds = 0;

  async window(running: RunningTarget, format: 'openai' | 'anthropic', durationMs: number, withServices: boolean) {
    const shape = requestShape(running, format, false);
    const pids = withServices ? servicePids() : [];
    const before = threadTimes(running.pid);
    const servicesBefore = pids.map(({ pid }) => treeCpuMs(pid));
    const result = await closedLoop(shape, { concurrency: 64, durationMs, warmupMs: 0 });
    const after = threadTimes(running.pid);
    for (const [index, { name, pid }] of pids.entries()) {
      this.services.set(name, (this.services.get(name) ?? 0) + treeCpuMs(pid) - servicesBefore[index]!);
    }
    for (const [tid, ms] of after) this.threads.set(tid, (this.threads.get(tid) ?? 0) + ms - (before.get(tid) ?? 0));
    this.requests += result.requests;
    this.seconds += result.seconds;
    if (result.errors > 0) throw new Error(`${result.errors} requests failed`);
    return result;
  }

  mainMs(pid: number): number {
    return this.threads.get(pid) ?? 0;
  }

  totalMs(): number {
    return [...this.threads.values()].reduce((sum, ms) => sum + ms, 0);
  }

  print(label: string, pid: number): void {
    console.log(`${label}: ${(this.requests / this.seconds).toFixed(0)} req/s over ${this.seconds.toFixed(0)} s`);
    const rows = [...this.threads].filter(([, ms]) => ms > 0).sort((left, right) => right[1] - left[1]);
    for (const [tid, ms] of rows) {
      const name = tid === pid ? 'main thread' : `thread ${tid}`;
      console.log(`  ${name.padEnd(16)} ${String(ms).padStart(6)} ms  ${µs(ms, this.requests)} µs/req`);
    }
    console.log(
      `  ${'all threads'.padEnd(16)} ${String(this.totalMs()).padStart(6)} ms  ${µs(this.totalMs(), this.requests)} µs/req`,
    );
    for (const [name, ms] of this.services) {
      console.log(`  ${`(${name})`.padEnd(16)} ${String(ms).padStart(6)} ms  ${µs(ms, this.requests)} µs/req`);
    }
  }
}

async function single(target: Target, context: BenchContext, format: 'openai' | 'anthropic', durationMs: number) {
  const running = await target.start(context);
  try {
    await closedLoop(requestShape(running, format, false), { concurrency: 64, durationMs: 2000, warmupMs: 0 });
    const tally = new Tally();
    const result = await tally.window(running, format, durationMs, target === gatewayClusterTarget);
    console.log(`p99 ${result.p99.toFixed(2)} ms`);
    tally.print(`${target.label} ${format}`, running.pid);
  } finally {
    await running.stop();
  }
}

/** Embedded and cluster side by side, in alternating windows; prints the cluster/embedded ratios. */
async function compare(context: BenchContext, format: 'openai' | 'anthropic', durationMs: number) {
  const rounds = Number(process.env.ROUNDS ?? 5);
  const embedded = await gatewayEmbeddedTarget.start(context);
  const cluster = await gatewayClusterTarget.start(context).catch(async (error: unknown) => {
    await embedded.stop();
    throw error;
  });
  try {
    const tallies = { embedded: new Tally(), cluster: new Tally() };
    for (const running of [embedded, cluster]) {
      await closedLoop(requestShape(running, format, false), { concurrency: 64, durationMs: 3000, warmupMs: 0 });
    }
    for (let round = 0; round < rounds; round++) {
      // Which goes first alternates, so that neither always follows the other's load.
      const order = round % 2 === 0 ? (['embedded', 'cluster'] as const) : (['cluster', 'embedded'] as const);
      for (const which of order) {
        const running = which === 'embedded' ? embedded : cluster;
        await closedLoop(requestShape(running, format, false), { concurrency: 64, durationMs: 1000, warmupMs: 0 });
        const result = await tallies[which].window(running, format, durationMs, which === 'cluster');
        console.log(`round ${round + 1} ${which}: ${result.rps.toFixed(0)} req/s`);
      }
    }
    tallies.embedded.print(`gateway (embedded) ${format}`, embedded.pid);
    tallies.cluster.print(`gateway (cluster) ${format}`, cluster.pid);
    const perRequest = (tally: Tally, ms: number) => ms / tally.requests;
    const main =
      perRequest(tallies.cluster, tallies.cluster.mainMs(cluster.pid)) /
      perRequest(tallies.embedded, tallies.embedded.mainMs(embedded.pid));
    const all =
      perRequest(tallies.cluster, tallies.cluster.totalMs()) / perRequest(tallies.embedded, tallies.embedded.totalMs());
    const throughput =
      tallies.cluster.requests / tallies.cluster.seconds / (tallies.embedded.requests / tallies.embedded.seconds);
    console.log(
      `cluster / embedded, CPU per request: main thread ${main.toFixed(2)} ×, all threads ${all.toFixed(2)} ×`,
    );
    console.log(`  (target: all threads at most 1.15 ×); c=64 throughput ${throughput.toFixed(2)} ×`);
  } finally {
    await cluster.stop();
    await embedded.stop();
  }
}

async function main(): Promise<void> {
  const which = process.argv[2] ?? 'gateway';
  const format = (process.argv[3] ?? 'openai') as 'openai' | 'anthropic';
  const durationMs = Number(process.env.DURATION ?? 4000);
  const upstream = await forkTs('fake-upstream', 'bench/fake-upstream.ts');
  const context: BenchContext = {
    upstreamUrl: `http://127.0.0.1:${upstream.port}`,
    quick: true,
    profileDirectory: process.env.PROFILE_DIR ?? null,
    log: () => {},
  };
  try {
    if (which === 'compare') {
      const missing = gatewayClusterTarget.unavailable(context);
      if (missing) throw new Error(missing);
      await compare(context, format, durationMs);
    } else {
      const targets: Record<string, Target> = {
        gateway: gatewayEmbeddedTarget,
        cluster: gatewayClusterTarget,
        ceiling: ceilingTarget,
      };
      const target = targets[which];
      if (!target) throw new Error(`unknown target ${which}: gateway, cluster, ceiling or compare`);
      await single(target, context, format, durationMs);
    }
  } finally {
    await upstream.child.stop();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
