/**
 * The entry of a worker thread started from source (tsx, vitest): Node 20 does not apply an
 * `--import tsx` given in a Worker's execArgv to the worker's own entry module, so this plain module
 * registers tsx's loader first and then imports the TypeScript entry named in workerData.entry.
 * The bundle in dist/ starts its workers from built JavaScript and never comes here.
 */
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.entry);
