/**
 * A gateway started on a port another process holds says so in one line, naming the
 * port and how to choose another, and exits with status 1: no stack trace, no `gateway started`.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, expect, it } from 'vitest';
import { bundled } from '../support/server-bundle.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cleanups: Array<() => void> = [];

afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

it('exits with status 1 and one line naming the taken port and PORT', async () => {
  const holder = net.createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => holder.close());
  const port = (holder.address() as net.AddressInfo).port;
  const dataDirectory = mkdtempSync(path.join(tmpdir(), 'port-in-use-'));
  cleanups.push(() => rmSync(dataDirectory, { recursive: true, force: true }));

  const child = spawn(process.execPath, [bundled('gateway/main.ts')], {
    cwd: root,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDirectory, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk;
  });
  const exitCode = await new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

  expect(exitCode).toBe(1);
  expect(stdout).not.toContain('gateway started');
  const lines = stderr.split('\n').filter((line) => line.trim() !== '');
  expect(lines).toHaveLength(1);
  const message = JSON.parse(lines[0]!).msg as string;
  expect(message).toContain(`port ${port} on 127.0.0.1`);
  expect(message).toContain('already in use');
  expect(message).toContain(`PORT=${port + 1}`);
}, 60_000);
