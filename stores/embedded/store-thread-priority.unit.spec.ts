/**
 * The store worker runs at its background nice value, is given the relay's own priority while
 * requests wait for its appends (StoreThread.prioritize(true), from backlog-admission.ts), and goes
 * back to the background once they no longer do. Lowering a nice value needs CAP_SYS_NICE: where the
 * tests run without it, the case is skipped with the reason.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MemoryLookups } from '../memory-lookups.ts';
import { StoreThread } from './store-thread.ts';
import { setThreadPriority } from './thread-priority.ts';

/** Field 19 of /proc/<pid>/task/<tid>/stat is the nice value. */
function niceOf(threadId: number): number {
  const stat = readFileSync(`/proc/${process.pid}/task/${threadId}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
}

/** Whether this process may lower a nice value (root, or a raised RLIMIT_NICE). */
function mayLowerNice(): boolean {
  // The main thread's own value, set to what it is: allowed for anyone; then a probe of one lower.
  const current = niceOf(process.pid);
  if (current <= -20) return true;
  const allowed = setThreadPriority(process.pid, current - 1);
  if (allowed) setThreadPriority(process.pid, current);
  return allowed;
}

describe.runIf(process.platform === 'linux' && mayLowerNice())('StoreThread.prioritize', () => {
  it('gives the worker the relay’s priority while requests wait, and its background priority back', async () => {
    const directory = mkdtempSync(path.join(tmpdir(), 'store-priority-'));
    const thread = new StoreThread(directory, new MemoryLookups(), 15);
    try {
      await thread.start();
      const threadId = thread.threadId!;
      expect(threadId).not.toBe(process.pid);
      expect(niceOf(threadId)).toBe(15);
      thread.prioritize(true);
      expect(niceOf(threadId)).toBe(0);
      thread.prioritize(false);
      expect(niceOf(threadId)).toBe(15);
      expect(niceOf(process.pid)).not.toBe(15);
    } finally {
      await thread.close();
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
