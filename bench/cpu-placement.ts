/**
 * @module bench/cpu-placement
 * Which CPUs the bench's processes may run on (`taskset`, util-linux). A cluster gateway node is
 * deployed apart from Kafka, ClickHouse and Redis; on the one machine of a bench run the nearest
 * arrangement is to give the cluster's servers (and its projector) cores of their own and the request's
 * path (the load generator, the upstream, the gateway node and the Node ceiling) the others. At c=1 that
 * path is a chain, one process running at a time, so one core serves it; what this arrangement takes
 * away is the servers' work landing on the core a request is waiting for (docs/performance.md, "The
 * cluster node's servers on a core of their own").
 */
import { execFileSync } from 'node:child_process';
import { processTree } from './processes.ts';

export interface Placement {
  /** CPU lists as taskset takes them */
  requestPath: string;
  servers: string;
  /** what every process may use again afterwards: the bench's own CPUs when it started */
  all: string;
}

/** This process's CPUs as a list of numbers (`taskset -p -c` prints e.g. "…current affinity list: 0-3,6"). */
function ownCpus(): number[] {
  const output = execFileSync('taskset', ['-p', '-c', String(process.pid)], { encoding: 'utf8' });
  const list = output.slice(output.lastIndexOf(':') + 1).trim();
  return list.split(',').flatMap((part) => {
    const [first, last] = part.split('-').map(Number);
    if (last === undefined) return [first!];
    return Array.from({ length: last - first! + 1 }, (_, index) => first! + index);
  });
}

/**
 * The servers on the upper half of the bench's CPUs, the request's path on the lower half; null when
 * there is one CPU or taskset is missing.
 */
export function separatedPlacement(): Placement | null {
  let cpus: number[];
  try {
    cpus = ownCpus();
  } catch {
    return null;
  }
  if (cpus.length < 2) return null;
  const half = Math.ceil(cpus.length / 2);
  return {
    requestPath: cpus.slice(0, half).join(','),
    servers: cpus.slice(half).join(','),
    all: cpus.join(','),
  };
}

/**
 * Every thread of each process may run on `cpus` only (threads started later inherit it); with
 * `descendants`, every process under each too (not for the bench's own process: its children are the
 * targets).
 */
export function place(pids: readonly number[], cpus: string, descendants = true): void {
  for (const pid of descendants ? pids.flatMap((root) => processTree(root)) : pids) {
    try {
      execFileSync('taskset', ['-a', '-p', '-c', cpus, String(pid)], { stdio: 'ignore' });
    } catch {
      // a process that ended meanwhile has nothing left to place
    }
  }
}
