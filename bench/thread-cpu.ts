/**
 * @module bench/thread-cpu
 * Where a target's CPU goes, thread by thread: starts the fake upstream and one target (the gateway
 * as it ships, or the Node ceiling), loads it with 64 clients, and prints the CPU microseconds per
 * request each of its threads used (from /proc/<pid>/task/<tid>/stat). The main thread is the event
 * loop; in the gateway the busiest other thread is the store worker, and the four small ones are V8's
 * GC helpers. A wall-clock profile cannot tell these apart, and on a machine with two cores shared by
 * the load generator, the upstream and the target, a thread's CPU is what throughput pays for.
 *
 *   npx tsx bench/thread-cpu.ts [gateway|ceiling] [openai|anthropic]   (DURATION=ms, default 4000)
 *   BENCH_GATEWAY_NODE_FLAGS=... passes Node flags to the gateway (see gateway-targets.ts).
 */
import { readdirSync } from 'node:fs';
import { gatewayEmbeddedTarget } from './gateway-targets.ts';
import { closedLoop } from './load.ts';
import { forkTs, threadCpuMs } from './processes.ts';
import { ceilingTarget, requestShape } from './targets.ts';

/** CPU milliseconds per thread of a process, keyed by thread id (0 for a thread that just ended). */
function threadTimes(pid: number): Map<number, number> {
  return new Map(readdirSync(`/proc/${pid}/task`).map((tid) => [Number(tid), threadCpuMs(pid, Number(tid))]));
}

async function main(): Promise<void> {
  const which = process.argv[2] ?? 'gateway';
  const format = (process.argv[3] ?? 'openai') as 'openai' | 'anthropic';
  const durationMs = Number(process.env.DURATION ?? 4000);
  const upstream = await forkTs('fake-upstream', 'bench/fake-upstream.ts');
  const context = {
    upstreamUrl: `http://127.0.0.1:${upstream.port}`,
    quick: true,
    profileDirectory: process.env.PROFILE_DIR ?? null,
    log: () => {},
  };
  const running = await (which === 'ceiling' ? ceilingTarget : gatewayEmbeddedTarget).start(context);
  try {
    const shape = requestShape(running, format, false);
    await closedLoop(shape, { concurrency: 64, durationMs: 2000, warmupMs: 0 });
    const before = threadTimes(running.pid);
    const result = await closedLoop(shape, { concurrency: 64, durationMs, warmupMs: 0 });
    const after = threadTimes(running.pid);
    console.log(`${which} ${format}: ${result.rps.toFixed(0)} req/s, p99 ${result.p99.toFixed(2)} ms`);
    const rows = [...after]
      .map(([tid, ms]) => ({ tid, ms: ms - (before.get(tid) ?? 0) }))
      .filter((row) => row.ms > 0)
      .sort((left, right) => right.ms - left.ms);
    let total = 0;
    for (const { tid, ms } of rows) {
      total += ms;
      const name = tid === running.pid ? 'main thread' : `thread ${tid}`;
      console.log(
        `  ${name.padEnd(16)} ${String(ms).padStart(6)} ms  ${((ms / result.requests) * 1000).toFixed(1).padStart(6)} µs/req`,
      );
    }
    console.log(
      `  ${'all threads'.padEnd(16)} ${String(total).padStart(6)} ms  ${((total / result.requests) * 1000).toFixed(1).padStart(6)} µs/req`,
    );
  } finally {
    await running.stop();
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
