/**
 * @module bench/autocannon-child
 * Run by bench/autocannon.ts in a process of its own: one autocannon closed loop over the warm-up and
 * every window, each answer counted in the window it arrived in (answers outside the windows are not
 * counted). Sends the counts to the parent over IPC and exits.
 */
import autocannon from 'autocannon';
import type { AutocannonCounts } from './autocannon.ts';
import type { RequestShape } from './load.ts';

const job = JSON.parse(process.argv[2]!) as {
  shape: RequestShape;
  concurrency: number;
  warmupMs: number;
  windowMs: number;
  windows: number;
};
const okPerWindow = new Array<number>(job.windows).fill(0);
const failures: Record<string, number> = {};
let firstError: string | null = null;
const start = performance.now() + job.warmupMs;
const end = start + job.windows * job.windowMs;
let cpuAtStart: NodeJS.CpuUsage | null = null;
let cpuAtEnd: NodeJS.CpuUsage | null = null;
setTimeout(() => {
  cpuAtStart = process.cpuUsage();
}, job.warmupMs);
setTimeout(
  () => {
    cpuAtEnd = process.cpuUsage(cpuAtStart ?? undefined);
  },
  job.warmupMs + job.windows * job.windowMs,
);

const instance = autocannon({
  url: `${job.shape.origin}${job.shape.path}`,
  method: 'POST',
  headers: job.shape.headers,
  body: job.shape.body,
  connections: job.concurrency,
  // whole seconds, past the last window: answers after `end` are not counted
  duration: Math.ceil((job.warmupMs + job.windows * job.windowMs) / 1000) + 1,
});

instance.on('response', (_client: unknown, statusCode: number) => {
  const now = performance.now();
  if (now < start || now >= end) return;
  if (statusCode >= 200 && statusCode < 300) okPerWindow[Math.floor((now - start) / job.windowMs)]!++;
  else {
    failures[statusCode] = (failures[statusCode] ?? 0) + 1;
    firstError ??= `HTTP ${statusCode}`;
  }
});

instance.on('done', (result: { errors: number; timeouts: number }) => {
  if (result.errors + result.timeouts > 0) {
    failures['error'] = result.errors + result.timeouts;
    firstError ??= `${result.errors} connection errors, ${result.timeouts} timeouts`;
  }
  const cpu = cpuAtEnd ?? process.cpuUsage(cpuAtStart ?? undefined);
  const counts: AutocannonCounts = { okPerWindow, failures, firstError, cpuMicroseconds: cpu.user + cpu.system };
  process.send!(counts, () => process.exit(0));
});
