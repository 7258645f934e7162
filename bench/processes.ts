/**
 * @module bench/processes
 * Starting, watching and stopping the bench's child processes: TypeScript children forked with tsx
 * that report their port over IPC, plain commands (the peers) polled until they answer HTTP, and the
 * memory and CPU of a process tree read from /proc.
 */
import { type ChildProcess, fork, spawn } from 'node:child_process';
import { closeSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const WORK = path.join(ROOT, '.bench');

/** True when the module at `moduleUrl` is the script node was started with. */
export function isMain(moduleUrl: string): boolean {
  return process.argv[1] !== undefined && fileURLToPath(moduleUrl) === path.resolve(process.argv[1]);
}

export interface Child {
  process: ChildProcess;
  pid: number;
  logFile: string;
  /** Resolves when the process has exited. */
  exited: Promise<number | null>;
  stop(): Promise<void>;
}

function logTo(name: string): { file: string; fd: number } {
  const file = path.join(WORK, 'logs', `${name}.log`);
  return { file, fd: openSync(file, 'w') };
}

function tail(file: string): string {
  try {
    return readFileSync(file, 'utf8').trim().split('\n').slice(-12).join('\n');
  } catch {
    return '';
  }
}

function wrap(child: ChildProcess, logFile: string, group: boolean): Child {
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    process: child,
    pid: child.pid!,
    logFile,
    exited,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const signal = (name: NodeJS.Signals) => {
        try {
          // A peer started in its own process group (its workers with it) is stopped as a group.
          if (group) process.kill(-child.pid!, name);
          else child.kill(name);
        } catch {
          // already gone
        }
      };
      signal('SIGTERM');
      const timeout = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), 15_000).unref());
      if ((await Promise.race([exited, timeout])) === 'timeout') {
        signal('SIGKILL');
        await exited;
      }
    },
  };
}

/**
 * Forks a TypeScript module of this repo under tsx and waits for its first IPC message, which must
 * be `{ port }` (or `{ error }`).
 */
export async function forkTs(
  name: string,
  script: string,
  { args = [], env = {}, execArgv = [] }: { args?: string[]; env?: Record<string, string>; execArgv?: string[] } = {},
): Promise<{ child: Child; port: number }> {
  const log = logTo(name);
  const child = fork(path.join(ROOT, script), args, {
    cwd: ROOT,
    env: { ...process.env, ...env },
    execArgv: [...execArgv, '--import', 'tsx'],
    stdio: ['ignore', log.fd, log.fd, 'ipc'],
  });
  closeSync(log.fd);
  const wrapped = wrap(child, log.file, false);
  const message = await new Promise<{ port?: number; error?: string }>((resolve) => {
    child.once('message', (value) => resolve(value as { port?: number; error?: string }));
    child.once('exit', (code) => resolve({ error: `exited with code ${code}` }));
  });
  if (message.port === undefined) {
    await wrapped.stop();
    throw new Error(`${name} did not start: ${message.error ?? 'no port'}\n${tail(log.file)}`);
  }
  return { child: wrapped, port: message.port };
}

/** Spawns a command in its own process group (so its workers can be measured and stopped with it). */
export function spawnCommand(
  name: string,
  command: string,
  args: string[],
  { env = {}, cwd = ROOT }: { env?: Record<string, string>; cwd?: string } = {},
): Child {
  const log = logTo(name);
  const child = spawn(command, args, {
    cwd,
    env: { ...process.env, ...env },
    stdio: ['ignore', log.fd, log.fd],
    detached: true,
  });
  closeSync(log.fd);
  return wrap(child, log.file, true);
}

export async function waitForHttp(url: string, child: Child, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exited = false;
  void child.exited.then(() => {
    exited = true;
  });
  while (Date.now() < deadline) {
    if (exited) throw new Error(`exited before answering ${url}\n${tail(child.logFile)}`);
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(1000) });
      await response.arrayBuffer();
      if (response.status < 500) return;
    } catch {
      // not up yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`no answer from ${url} within ${timeoutMs} ms\n${tail(child.logFile)}`);
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The pid and every descendant of it, read from /proc. */
export function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const list = children.get(parent) ?? [];
      list.push(Number(entry));
      children.set(parent, list);
    } catch {
      // the process ended while we looked
    }
  }
  const tree = [root];
  for (let index = 0; index < tree.length; index++) tree.push(...(children.get(tree[index]!) ?? []));
  return tree;
}

/** Resident memory of a process and its descendants, in bytes (shared pages count once per process). */
export function treeRss(root: number): number {
  let total = 0;
  for (const pid of processTree(root)) {
    try {
      const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      if (match) total += Number(match[1]) * 1024;
    } catch {
      // ended
    }
  }
  return total;
}

const TICKS_PER_SECOND = 100;

/** User + system CPU of a /proc `stat` file, in milliseconds; 0 once its process or thread has ended. */
function statCpuMs(file: string): number {
  try {
    const stat = readFileSync(file, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/** CPU time (user + system) of one thread (`tid` = `pid` is a process's main thread), in milliseconds. */
export function threadCpuMs(pid: number, tid = pid): number {
  return statCpuMs(`/proc/${pid}/task/${tid}/stat`);
}

/** CPU time (user + system) of a process and its descendants, in milliseconds. */
export function treeCpuMs(root: number): number {
  return processTree(root).reduce((total, pid) => total + statCpuMs(`/proc/${pid}/stat`), 0);
}

/**
 * The cluster's servers started by scripts/services (their pid files under SERVICES_DIR, by default
 * the checkout's .services), if any: their CPU is part of a cluster node's cost on a shared machine.
 */
export function servicePids(): Array<{ name: string; pid: number }> {
  const directory = process.env.SERVICES_DIR || path.join(ROOT, '.services');
  const files = { kafka: 'kafka/kafka.pid', redis: 'redis/redis.pid', clickhouse: 'clickhouse/clickhouse.pid' };
  return Object.entries(files).flatMap(([name, file]) => {
    try {
      const pid = Number(readFileSync(path.join(directory, file), 'utf8').trim());
      return pid > 0 && statCpuMs(`/proc/${pid}/stat`) > 0 ? [{ name, pid }] : [];
    } catch {
      return [];
    }
  });
}
