/**
 * @module test/support/thread-priority-probe
 * Run as a worker thread (through scripts/typescript-worker.mjs): lowers its own priority by
 * workerData.nice and reports the thread id and the nice value /proc shows for it.
 */
import { readFileSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { lowerThreadPriority } from '../../stores/embedded/thread-priority.ts';

const threadId = lowerThreadPriority((workerData as { nice: number }).nice);
const stat = readFileSync('/proc/thread-self/stat', 'utf8');
parentPort!.postMessage({ threadId, nice: Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]) });
