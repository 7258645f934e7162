/**
 * @module platform/worker-heap
 * Lets a worker thread's own `resourceLimits` decide its young generation.
 *
 * V8 reads `--max-semi-space-size` when it makes each isolate, and the flag wins over the limits Node
 * passes for a worker. `npm start` gives the relay thread a 16 MB semi-space, so every worker got the
 * same, whatever its `resourceLimits` said, and the store worker, meant to run in 4 MB, held tens of MB
 * more (figures: docs/performance.md, "The store worker's young generation").
 */
import v8 from 'node:v8';

/**
 * Clears the flag for isolates made from now on. The relay's heap keeps the size it started with
 * (fixed when its isolate was made); a worker started afterwards takes its `resourceLimits`, or V8's
 * default for this machine's memory without them.
 */
export function letWorkersSizeTheirYoungGeneration(): void {
  v8.setFlagsFromString('--max-semi-space-size=0');
}
