/**
 * Installs the agent clients from npm into a cache outside the project, so that `npm install` of the
 * gateway stays lean: `~/.cache/llm-gateway/clients/<package>@<version>` (`CLIENTS_CACHE` moves it),
 * one `npm install --prefix` each, reused by later runs. `CLIENTS_VERSIONS=latest` installs the newest
 * versions the registry serves instead of the pinned ones.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { type ClientDefinition, type ClientName, clients } from './client-definitions.ts';

const run = promisify(execFile);

export interface InstalledClient {
  name: ClientName;
  packageName: string;
  version: string;
  /** the executable to run */
  bin: string;
}

export const cacheDirectory = () =>
  process.env.CLIENTS_CACHE ?? path.join(homedir(), '.cache', 'llm-gateway', 'clients');

export const wantsLatest = () => process.env.CLIENTS_VERSIONS === 'latest';

async function resolveVersion(client: ClientDefinition): Promise<string> {
  if (!wantsLatest()) return client.pinned;
  const { stdout } = await run('npm', ['view', client.packageName, 'version'], { timeout: 60_000 });
  return stdout.trim();
}

export async function installClient(client: ClientDefinition): Promise<InstalledClient> {
  const version = await resolveVersion(client);
  const directory = path.join(cacheDirectory(), `${client.packageName.replace('/', '+')}@${version}`);
  const bin = path.join(directory, 'node_modules', '.bin', client.bin);
  // Written last, so that an install cut short is done again rather than trusted.
  const done = path.join(directory, '.installed');
  if (!existsSync(done) || !existsSync(bin)) {
    mkdirSync(directory, { recursive: true });
    // Codex and Claude Code ship their native binaries as optional dependencies: keep them.
    await run(
      'npm',
      [
        'install',
        '--prefix',
        directory,
        '--no-audit',
        '--no-fund',
        '--include=optional',
        `${client.packageName}@${version}`,
      ],
      { timeout: 300_000 },
    );
    if (!existsSync(bin)) throw new Error(`${client.packageName}@${version} installed no ${client.bin} executable`);
    writeFileSync(done, `${new Date().toISOString()}\n`);
  }
  return { name: client.name, packageName: client.packageName, version, bin };
}

export async function installClients(): Promise<InstalledClient[]> {
  return Promise.all(clients.map(installClient));
}
