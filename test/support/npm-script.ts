/**
 * @module test/support/npm-script
 * Runs a package.json script through `npm run`, as a terminal or a container's PID 1 does, and finds the
 * processes under it, so that a test can signal npm alone and see what is left.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface NpmScript {
  npm: ChildProcess;
  /** stdout and stderr so far */
  output(): string;
  /** resolves with npm's exit code (or the signal that ended it) */
  exited: Promise<number | NodeJS.Signals | null>;
}

export function runNpmScript(script: string, environment: Record<string, string>): NpmScript {
  const npm = spawn('npm', ['run', script], {
    cwd: root,
    env: { ...process.env, ...environment },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  npm.stdout?.on('data', (chunk: Buffer) => {
    text += chunk;
  });
  npm.stderr?.on('data', (chunk: Buffer) => {
    text += chunk;
  });
  const exited = new Promise<number | NodeJS.Signals | null>((resolve) =>
    npm.once('exit', (code, signal) => resolve(code ?? signal)),
  );
  return { npm, output: () => text, exited };
}

function parentOf(pid: number): number | null {
  try {
    // The command name is in parentheses and may hold spaces: the fields after it are fixed.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return null;
  }
}

/** Every process below `pid` right now (Linux /proc). */
export function descendantsOf(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    const candidate = Number(entry);
    if (!Number.isInteger(candidate)) continue;
    const parent = parentOf(candidate);
    if (parent !== null) children.set(parent, [...(children.get(parent) ?? []), candidate]);
  }
  const found: number[] = [];
  const pending = [pid];
  while (pending.length > 0) {
    for (const child of children.get(pending.pop()!) ?? []) {
      found.push(child);
      pending.push(child);
    }
  }
  return found;
}

/** Running, that is: a process that has ended but is not reaped yet (a zombie) counts as gone. */
export function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

export function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
  } catch {
    return '';
  }
}
