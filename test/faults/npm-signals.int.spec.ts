/**
 * `npm start`, `npm run start:built` and `npm run gateway` hand a signal sent to npm on to the gateway:
 * in a container npm is PID 1 and `docker stop` signals it alone. Otherwise npm and its `sh` would end
 * and `node` go on serving, re-parented, and never run its graceful shutdown. Each case signals npm's
 * pid only, then expects every process under it gone, the port closed, and the gateway's
 * shutdown to have run to its end (its log line, exit status 0, the store closed: no SQLite WAL left).
 * `npm start` itself differs from `start:built` only by its build step (a check below keeps them so);
 * the console build takes a minute, so the process cases run the built bundle.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../cluster/cluster-processes.ts';
import { commandOf, descendantsOf, isAlive, runNpmScript } from '../support/npm-script.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const started: number[] = [];
const directories: string[] = [];

afterEach(() => {
  // Whatever a failed case left running is ended here, by the pids it recorded.
  for (const pid of started.splice(0)) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

beforeAll(() => {
  execFileSync('npm', ['run', '--silent', 'build:server'], { cwd: root, stdio: 'ignore' });
}, 120_000);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor(condition: () => boolean, withinMs: number): Promise<boolean> {
  for (const deadline = Date.now() + withinMs; Date.now() < deadline; await sleep(50)) {
    if (condition()) return true;
  }
  return condition();
}

function portAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

async function signalledGateway(script: string, signal: NodeJS.Signals) {
  const port = await freePort();
  const dataDirectory = mkdtempSync(path.join(tmpdir(), 'npm-signals-'));
  directories.push(dataDirectory);
  const run = runNpmScript(script, { PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDirectory });
  started.push(run.npm.pid!);
  const up = await waitFor(() => run.output().includes('gateway started'), 60_000);
  expect(up, run.output()).toBe(true);
  const below = descendantsOf(run.npm.pid!);
  started.push(...below);
  expect(below.map(commandOf).some((command) => command.includes('dist/gateway/main.js'))).toBe(true);
  expect(await portAnswers(port)).toBe(true);

  process.kill(run.npm.pid!, signal);
  const npmExit = await Promise.race([run.exited, sleep(10_000).then(() => 'still running')]);
  const allGone = await waitFor(() => below.every((pid) => !isAlive(pid)), 5_000);
  const left = below.filter(isAlive).map((pid) => `${pid} ${commandOf(pid)}`);
  return { run, port, dataDirectory, npmExit, allGone, left };
}

describe('a signal sent to npm alone reaches the gateway', () => {
  it.each([
    ['gateway', 'SIGTERM'],
    ['start:built', 'SIGTERM'],
    ['start:built', 'SIGINT'],
  ] as const)(
    'npm run %s, %s',
    async (script, signal) => {
      const { run, port, dataDirectory, npmExit, allGone, left } = await signalledGateway(script, signal);
      expect(left, run.output()).toEqual([]);
      expect(allGone).toBe(true);
      expect(await portAnswers(port)).toBe(false);
      expect(run.output()).toContain(`"msg":"shutting down","signal":"${signal}"`);
      // npm ends with its script's status: 0 is the gateway's own exit after a complete shutdown.
      expect(npmExit).toBe(0);
      expect(existsSync(path.join(dataDirectory, 'gateway.db'))).toBe(true);
      expect(existsSync(path.join(dataDirectory, 'gateway.db-wal'))).toBe(false);
    },
    90_000,
  );
});

it('npm start runs what start:built runs, after the build', () => {
  const scripts = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).scripts;
  expect(scripts.start).toBe(`npm run build && ${scripts['start:built']}`);
  for (const name of ['start:built', 'gateway', 'projector', 'rebuild', 'dev']) {
    // `exec` puts node in the place of npm's `sh`, so npm's signal reaches it.
    expect(scripts[name]).toMatch(/(^|&& )exec /);
  }
});
