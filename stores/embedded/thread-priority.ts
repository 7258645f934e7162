/**
 * @module stores/embedded/thread-priority
 * Lowers the scheduling priority of the calling thread only. The store worker does the embedded
 * store's background work (appending the event log, projecting it); when it shares a core with the
 * relay thread, the upstream or a client, the relay should win: measured on two cores, a store worker
 * at the relay's priority added about 0.3 ms to the relay's 99th-percentile latency at one request at
 * a time, and at 64 clients the relay served about 15% fewer requests, while a worker at nice 19 kept
 * up with every append and projection in spare time. Should it ever fall far behind, the relay refuses
 * new requests rather than queue their events without bound (EVENT_QUEUE_LIMIT).
 *
 * Linux gives each thread its own nice value, and `setpriority` takes a thread id; elsewhere, or
 * without /proc/thread-self, nothing changes (never the whole process's priority). Raising a nice
 * value needs no privilege; lowering it again would, so this is done once, at the worker's start.
 */
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';

/** Returns the thread id whose nice value was set, or null when it was left alone. */
export function lowerThreadPriority(nice: number): number | null {
  if (nice <= 0 || process.platform !== 'linux') return null;
  let threadId: number;
  try {
    // "<pid>/task/<tid>"
    threadId = Number(readlinkSync('/proc/thread-self').split('/').pop());
  } catch {
    return null;
  }
  if (!Number.isInteger(threadId) || threadId <= 0) return null;
  try {
    setPriority(threadId, Math.min(nice, 19));
    return threadId;
  } catch {
    return null;
  }
}
