/**
 * @module test/cluster/cluster-processes
 * Real processes of a cluster deployment for tests: gateway nodes (`--role=gateway`) and projectors,
 * each a child process started from the server bundle (test/support/server-bundle.ts, built by the
 * project's globalSetup) with its own environment, killable with SIGKILL.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundled } from '../support/server-bundle.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

export interface ClusterProcess {
  child: ChildProcess;
  output: string[];
  /** Its lines but the per-request ones (capped too): what it said about the servers, kept past the traffic. */
  notable: string[];
  url?: string;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

function start(
  script: string,
  args: string[],
  environment: Record<string, string>,
  readyLine: RegExp,
): Promise<ClusterProcess> {
  const child = spawn(process.execPath, ['--enable-source-maps', bundled(script), ...args], {
    cwd: root,
    env: { ...process.env, ...environment },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  const notable: string[] = [];
  const keepNotable = (data: Buffer) => {
    for (const line of data.toString().split('\n')) {
      if (line.trim() === '' || line.includes('"msg":"request"')) continue;
      notable.push(line);
      if (notable.length > 400) notable.splice(0, 200);
    }
  };
  const handle: ClusterProcess = {
    child,
    output,
    notable,
    kill: (signal = 'SIGTERM') =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill(signal);
      }),
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${script} did not start in 60 s:\n${output.join('')}`)), 60_000);
    const onData = (data: Buffer) => {
      output.push(data.toString());
      if (output.length > 400) output.splice(0, 200);
      if (readyLine.test(data.toString())) {
        clearTimeout(timer);
        resolve(handle);
      }
    };
    child.stdout!.on('data', onData);
    child.stdout!.on('data', keepNotable);
    child.stderr!.on('data', keepNotable);
    child.stderr!.on('data', (data: Buffer) => output.push(data.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${script} exited with ${code} before it was ready:\n${output.join('')}`));
    });
  });
}

export async function startGatewayNode(environment: Record<string, string>): Promise<ClusterProcess> {
  const port = await freePort();
  const node = await start(
    'gateway/main.ts',
    ['--role=gateway'],
    {
      DATA_DIR: mkdtempSync(path.join(tmpdir(), 'gateway-node-')),
      ...environment,
      PORT: String(port),
      HOST: '127.0.0.1',
    },
    /gateway started/,
  );
  node.url = `http://127.0.0.1:${port}`;
  return node;
}

export function startProjector(environment: Record<string, string>): Promise<ClusterProcess> {
  return start('projector/main.ts', [], environment, /projector started/);
}
