/**
 * @module bench/profile-run
 * The bench's profile phase: a separate gateway process under `--cpu-prof`, loaded like the
 * throughput run (start-up and warm-up left out), its largest profile summed up, with a flame graph.
 */
import { mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gatewayEmbeddedTarget } from './gateway-targets.ts';
import { closedLoop } from './load.ts';
import { ROOT, WORK } from './processes.ts';
import { flameGraphSvg, profileText, summariseProfile } from './profile.ts';
import type { BenchResults, Plan } from './report.ts';
import { type BenchContext, configureUpstream, requestShape } from './targets.ts';

/** A separate gateway process under --cpu-prof, loaded like the throughput run, then summed up. */
export async function profileGateway(
  context: BenchContext,
  plan: Plan,
  log: (message: string) => void,
): Promise<BenchResults['profile']> {
  // One profile per thread (tsx's loader runs in its own): the main thread's is the largest.
  const directory = path.join(WORK, 'profiles', new Date().toISOString().replace(/[:.]/g, '-'));
  mkdirSync(directory, { recursive: true });
  const spawned = performance.now();
  const running = await gatewayEmbeddedTarget.start({ ...context, profileDirectory: directory });
  let skipMs = 0;
  try {
    await configureUpstream(context.upstreamUrl, plan.streamShape);
    const plain = requestShape(running, 'openai', false);
    await closedLoop(plain, { concurrency: plan.concurrency, durationMs: 1000, warmupMs: 0 });
    // Start-up and warm-up are left out of the summary.
    skipMs = performance.now() - spawned;
    await closedLoop(plain, { concurrency: plan.concurrency, durationMs: plan.profileMs, warmupMs: 0 });
  } finally {
    await running.stop();
  }
  const [largest] = readdirSync(directory)
    .filter((name) => name.endsWith('.cpuprofile'))
    .map((name) => ({ name, size: statSync(path.join(directory, name)).size }))
    .sort((left, right) => right.size - left.size);
  if (!largest) throw new Error(`no .cpuprofile was written to ${directory}`);
  const file = path.join(WORK, 'profiles', 'gateway.cpuprofile');
  renameSync(path.join(directory, largest.name), file);
  rmSync(directory, { recursive: true, force: true });
  const summary = summariseProfile(file, 20, skipMs);
  const flameGraph = path.join(WORK, 'profiles', 'gateway-flame.svg');
  writeFileSync(flameGraph, flameGraphSvg(file, skipMs, `gateway, ${plan.concurrency} clients, OpenAI non-streamed`));
  const text = profileText(summary);
  writeFileSync(path.join(WORK, 'profiles', 'summary.txt'), `${text}\n`);
  log(`profile written to ${path.relative(ROOT, file)}; summary in .bench/profiles/summary.txt`);
  return {
    file: path.relative(ROOT, file),
    flameGraph,
    workload: `OpenAI non-streamed, c=${plan.concurrency}`,
    summary,
  };
}
