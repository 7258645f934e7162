/**
 * The store worker lowers its own priority, and only its own: the thread that relays requests keeps
 * its nice value. Checked from /proc on Linux, where the gateway runs in production.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';

/** Field 19 of /proc/<pid>/task/<tid>/stat is the nice value. */
function niceOf(statPath: string): number {
  const stat = readFileSync(statPath, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
}

const probe = fileURLToPath(new URL('../../test/support/thread-priority-probe.ts', import.meta.url));
const loader = fileURLToPath(new URL('../../scripts/typescript-worker.mjs', import.meta.url));

function runInWorker(nice: number): Promise<{ threadId: number | null; nice: number }> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(loader, { workerData: { entry: pathToFileURL(probe).href, nice } });
    worker.once('message', (message) => {
      resolve(message);
      void worker.terminate();
    });
    worker.once('error', reject);
  });
}

describe.runIf(process.platform === 'linux')('lowerThreadPriority', () => {
  it('sets the nice value of the calling thread, not of the process', async () => {
    const before = niceOf(`/proc/${process.pid}/task/${process.pid}/stat`);
    const result = await runInWorker(7);
    expect(result.threadId).not.toBeNull();
    expect(result.threadId).not.toBe(process.pid);
    expect(result.nice).toBe(Math.max(before, 7));
    expect(niceOf(`/proc/${process.pid}/task/${process.pid}/stat`)).toBe(before);
  });

  it('leaves the thread alone for 0', async () => {
    const result = await runInWorker(0);
    expect(result.threadId).toBeNull();
  });
});
