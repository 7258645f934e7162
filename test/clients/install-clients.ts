/**
 * Installs the clients from their registries into a cache outside the project, so that `npm install`
 * of the gateway stays lean: `~/.cache/llm-gateway/clients/` (`CLIENTS_CACHE` moves it), reused by
 * later runs. An agent CLI is one `npm install --prefix` into `<package>@<version>`; the SDKs are
 * installed by group (sdk-definitions.ts): the JavaScript ones with `npm install --prefix`, the Python
 * ones into a venv (`python3 -m venv`, pip), each into `sdk-<group>@<hash of its pins>` with its runner
 * scripts copied beside. `CLIENTS_VERSIONS=latest` installs the newest versions the registries serve
 * instead of the pinned ones.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { ClientDefinition, ClientName, SdkInstall } from './client-definitions.ts';
import { clients } from './client-list.ts';

const run = promisify(execFile);
const scripts = fileURLToPath(new URL('./sdk-scripts/', import.meta.url));

export interface InstalledClient {
  name: ClientName;
  packageName: string;
  /** the CLI's version; for an SDK, the packages of its row with theirs */
  version: string;
  /** the executable to run */
  bin: string;
  /** arguments before the client's own (an SDK's script) */
  leadingArgs: string[];
}

export const cacheDirectory = () =>
  process.env.CLIENTS_CACHE ?? path.join(homedir(), '.cache', 'llm-gateway', 'clients');

export const wantsLatest = () => process.env.CLIENTS_VERSIONS === 'latest';

async function latestVersion(runtime: SdkInstall['runtime'], packageName: string): Promise<string> {
  if (runtime === 'node') {
    const { stdout } = await run('npm', ['view', packageName, 'version'], { timeout: 60_000 });
    return stdout.trim();
  }
  const bare = packageName.replace(/\[.*\]$/, '');
  const response = await fetch(`https://pypi.org/pypi/${bare}/json`, { signal: AbortSignal.timeout(60_000) });
  if (!response.ok) throw new Error(`PyPI: ${bare}: ${response.status}`);
  return ((await response.json()) as { info: { version: string } }).info.version;
}

async function resolveVersion(client: ClientDefinition): Promise<string> {
  if (!wantsLatest()) return client.pinned;
  return latestVersion('node', client.packageName);
}

async function installAgentClient(client: ClientDefinition): Promise<InstalledClient> {
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
  return { name: client.name, packageName: client.packageName, version, bin, leadingArgs: [] };
}

interface SdkGroup {
  directory: string;
  versions: Record<string, string>;
  bin: string;
}

/** One install per group, whichever of its SDKs asks first. */
const groups = new Map<string, Promise<SdkGroup>>();

async function installGroup(install: SdkInstall): Promise<SdkGroup> {
  const versions: Record<string, string> = {};
  for (const [name, pinned] of Object.entries(install.packages)) {
    versions[name] = wantsLatest() ? await latestVersion(install.runtime, name) : pinned;
  }
  const specs = Object.entries(versions).map(([name, version]) =>
    install.runtime === 'node' ? `${name}@${version}` : `${name}==${version}`,
  );
  const hash = createHash('sha256').update(specs.join(' ')).digest('hex').slice(0, 12);
  const directory = path.join(cacheDirectory(), `sdk-${install.group}@${hash}`);
  const bin = install.runtime === 'node' ? process.execPath : path.join(directory, 'bin', 'python');
  const done = path.join(directory, '.installed');
  if (!existsSync(done) || !existsSync(bin)) {
    mkdirSync(directory, { recursive: true });
    if (install.runtime === 'node') {
      await run('npm', ['install', '--prefix', directory, '--no-audit', '--no-fund', ...specs], { timeout: 300_000 });
    } else {
      await run('python3', ['-m', 'venv', directory], { timeout: 120_000 });
      await run(bin, ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', ...specs], {
        timeout: 600_000,
      });
    }
    writeFileSync(done, `${new Date().toISOString()}\n${specs.join('\n')}\n`);
  }
  return { directory, versions, bin };
}

async function installSdkClient(client: ClientDefinition, install: SdkInstall): Promise<InstalledClient> {
  let group = groups.get(install.group);
  if (!group) {
    group = installGroup(install);
    groups.set(install.group, group);
  }
  const { directory, versions, bin } = await group;
  // Copied on every run (the scripts are the project's): beside node_modules, a script's imports
  // resolve to the cache install.
  const script = path.join(directory, install.script);
  copyFileSync(path.join(scripts, install.script), script);
  const version = install.uses.map((name) => `${name.replace(/\[.*\]$/, '')} ${versions[name]}`).join(', ');
  return { name: client.name, packageName: client.packageName, version, bin, leadingArgs: [script] };
}

export async function installClient(client: ClientDefinition): Promise<InstalledClient> {
  return client.sdk ? installSdkClient(client, client.sdk) : installAgentClient(client);
}

export async function installClients(): Promise<InstalledClient[]> {
  return Promise.all(clients.map(installClient));
}
