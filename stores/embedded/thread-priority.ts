/**
 * @module stores/embedded/thread-priority
 * Lowers the scheduling priority of the calling thread only. The store worker does the embedded
 * store's background work (appending the event log, projecting it); when it shares a core with the
 * relay thread, the upstream or a client, the relay should win, and a worker at the relay's priority
 * cost the relay latency and throughput (figures: docs/performance.md, "Figures behind choices in the
 * code"). Should it ever fall far behind, the relay refuses new requests rather than queue their events
 * without bound (EVENT_QUEUE_LIMIT).
 *
 * Linux gives each thread its own nice value, and `setpriority` takes a thread id; elsewhere, or
 * without /proc/thread-self, nothing changes (never the whole process's priority). Raising a nice
 * value needs no privilege; lowering it again needs CAP_SYS_NICE (root, or a raised RLIMIT_NICE).
 *
 * A worker that yields to everything starves when other processes keep the cores busy (one busy
 * process beside the gateway was enough: docs/performance.md, "Goodput under contention"). So
 * the relay, when requests start waiting for the log (backlog-admission.ts), gives the worker back the
 * relay's own priority (`setThreadPriority(id, 0)`) until the backlog is gone, where it may.
 */
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';

/** The calling thread's id on Linux (from /proc/thread-self), or null. */
export function currentThreadId(): number | null {
  if (process.platform !== 'linux') return null;
  try {
    // "<pid>/task/<tid>"
    const threadId = Number(readlinkSync('/proc/thread-self').split('/').pop());
    return Number.isInteger(threadId) && threadId > 0 ? threadId : null;
  } catch {
    return null;
  }
}

/** Sets a thread's nice value; false when the system refused (no privilege to lower it) or has no such thread. */
export function setThreadPriority(threadId: number, nice: number): boolean {
  try {
    setPriority(threadId, Math.max(-20, Math.min(nice, 19)));
    return true;
  } catch {
    return false;
  }
}

/** Returns the thread id whose nice value was set, or null when it was left alone. */
export function lowerThreadPriority(nice: number): number | null {
  if (nice <= 0) return null;
  const threadId = currentThreadId();
  if (threadId === null) return null;
  return setThreadPriority(threadId, nice) ? threadId : null;
}
