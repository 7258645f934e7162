/**
 * @module bench/clickhouse-only
 * `npx tsx bench/clickhouse-only.ts`: the cluster pipeline's figures on their own, at the full
 * bench's scale unless told otherwise: the projector's events/s sustained over 60 s and the data
 * overview's p95 over 10 million requests (bench/pipeline-clickhouse.ts measures both, in a namespace
 * of its own that it drops at the end). Prints the figures and the load average before and after.
 *
 * Options: --projector-requests=N (default 3,000,000: 6 million events), --sustain=S (60),
 * --overview-requests=N (10,000,000), --runs=N (60), --no-projector, --no-overview, --no-live-writes
 * (a live write's cost as the hour fills: bench/clickhouse-live-writes.ts), --profile=<file>
 * (a CPU profile of the projector's timed span: the projector runs in this process).
 */
import os from 'node:os';
import { inNamespace, liveWriteFigures, overviewFigures, projectorFigures } from './pipeline-clickhouse.ts';

const argv = process.argv.slice(2);
const option = (name: string, fallback: number) => {
  const value = argv.find((item) => item.startsWith(`--${name}=`))?.split('=')[1];
  return value === undefined ? fallback : Number(value);
};

const profile = argv.find((item) => item.startsWith('--profile='))?.split('=')[1];

const plan = {
  projectorRequests: option('projector-requests', 3_000_000),
  projectorSustainSeconds: option('sustain', 60),
  overviewRequests: option('overview-requests', 10_000_000),
  overviewRuns: option('runs', 60),
  overviewBudgetMs: 60_000,
  liveWrites: { fillLevels: [0, 500_000, 2_000_000], writeRequests: 600, writes: 5 },
};

const t0 = performance.now();
const log = (message: string) => console.log(`[${((performance.now() - t0) / 1000).toFixed(1)}s] ${message}`);
const load = () =>
  os
    .loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');

log(`load average ${load()}`);
const measured = await inNamespace(log, async (run) => {
  const projector = argv.includes('--no-projector') ? null : await projectorFigures(plan, run, log, profile);
  log(`load average ${load()}`);
  const overview = argv.includes('--no-overview') ? null : await overviewFigures(plan, run, log);
  log(`load average ${load()}`);
  const liveWrites = argv.includes('--no-live-writes') ? null : await liveWriteFigures(plan, run, log);
  return { clickhouseVersion: run.version, projector, overview, liveWrites };
});
if (measured.reason !== null) {
  console.error(measured.reason);
  process.exit(1);
}
console.log(JSON.stringify(measured.result, null, 2));
