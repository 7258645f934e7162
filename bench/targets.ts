/**
 * @module bench/targets
 * What the bench measures, as pluggable entries: each says whether it can run here (and if not, the
 * one line that says why), starts in its own process on its own port, tells how to send it an OpenAI
 * and an Anthropic request, and stops. Peers install themselves on first use.
 */

import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { StreamShape } from './fake-upstream.ts';
import type { RequestShape } from './load.ts';
import { forkTs, freePort, ROOT, spawnCommand, WORK, waitForHttp } from './processes.ts';

export interface BenchContext {
  upstreamUrl: string;
  quick: boolean;
  /** start the gateway with --cpu-prof, profiles written here */
  profileDirectory: string | null;
  log(message: string): void;
}

/** How to call one endpoint format of a running target. */
export interface Endpoint {
  path: string;
  headers: Record<string, string>;
  model: string;
}

export interface RunningTarget {
  role: Target['role'];
  origin: string;
  pid: number;
  version: string;
  openai: Endpoint | null;
  anthropic: Endpoint | null;
  /** seconds spent installing the target before this run (0 when it was already installed) */
  installSeconds: number;
  /**
   * Other processes that do this target's work and share the machine (the cluster gateway's projector,
   * Kafka, ClickHouse, Redis): their CPU is measured beside the target's, not in it.
   */
  companions?: Array<{ name: string; pid: number }>;
  /** the gateways: the calls and errors their data overview shows for the bench's user */
  usageTotals?(): Promise<{ calls: number; errors: number }>;
  stop(): Promise<void>;
}

export interface Target {
  id: string;
  label: string;
  role: 'upstream' | 'ceiling' | 'gateway' | 'peer';
  /** why this target cannot run here, or null when it can */
  unavailable(context: BenchContext): string | null;
  start(context: BenchContext): Promise<RunningTarget>;
}

/** Thrown by `start` when a target turns out not to be runnable (not an error of the bench). */
export class NotAvailable extends Error {}

export const CLIENT_KEY = 'sk-bench-ceiling-key-0123456789abcdef';
export const UPSTREAM_KEY = 'upstream-key-0123456789abcdef';
export const OPENAI_MODEL = 'gpt-4o-mini';
export const ANTHROPIC_MODEL = 'claude-sonnet-4-5';
export const GEMINI_MODEL = 'gemini-2.5-flash';

export function requestShape(target: RunningTarget, format: 'openai' | 'anthropic', stream: boolean): RequestShape {
  const endpoint = target[format]!;
  const messages = [{ role: 'user', content: 'Hello! Say something short.' }];
  const body =
    format === 'openai'
      ? { model: endpoint.model, messages, max_tokens: 64, ...(stream ? { stream: true } : {}) }
      : { model: endpoint.model, max_tokens: 64, messages, ...(stream ? { stream: true } : {}) };
  return {
    origin: target.origin,
    path: endpoint.path,
    headers: { 'content-type': 'application/json', ...endpoint.headers },
    body: JSON.stringify(body),
  };
}

export const nodeVersion = `Node ${process.version}`;

export function openaiAt(pathPrefix: string, headers: Record<string, string>, model = OPENAI_MODEL): Endpoint {
  return { path: `${pathPrefix}/v1/chat/completions`, headers, model };
}

export function anthropicAt(pathPrefix: string, headers: Record<string, string>, model = ANTHROPIC_MODEL): Endpoint {
  return { path: `${pathPrefix}/v1/messages`, headers: { 'anthropic-version': '2023-06-01', ...headers }, model };
}

/** (a) The fast fake upstream itself: the floor every other figure is compared with. */
export function upstreamTarget(upstream: { url: string; pid: number }): Target {
  return {
    id: 'upstream',
    label: 'upstream (direct)',
    role: 'upstream',
    unavailable: () => null,
    async start() {
      return {
        role: 'upstream',
        origin: upstream.url,
        pid: upstream.pid,
        version: `bench/fake-upstream.ts, ${nodeVersion}`,
        openai: openaiAt('', { authorization: `Bearer ${UPSTREAM_KEY}` }),
        anthropic: anthropicAt('', { 'x-api-key': UPSTREAM_KEY }),
        installSeconds: 0,
        stop: async () => {},
      };
    },
  };
}

/** (b) The minimal node:http + undici passthrough. */
export const ceilingTarget: Target = {
  id: 'ceiling',
  label: 'Node ceiling',
  role: 'ceiling',
  unavailable: () => null,
  async start(context) {
    const { child, port } = await forkTs('node-ceiling', 'bench/node-ceiling.ts', {
      args: [context.upstreamUrl, CLIENT_KEY],
      execArgv: context.profileDirectory ? ['--cpu-prof', `--cpu-prof-dir=${context.profileDirectory}`] : [],
    });
    return {
      role: 'ceiling',
      origin: `http://127.0.0.1:${port}`,
      pid: child.pid,
      version: `bench/node-ceiling.ts, undici ${undiciVersion()}, ${nodeVersion}`,
      openai: openaiAt('', { authorization: `Bearer ${CLIENT_KEY}` }),
      anthropic: anthropicAt('', { 'x-api-key': CLIENT_KEY }),
      installSeconds: 0,
      stop: () => child.stop(),
    };
  },
};

function undiciVersion(): string {
  return JSON.parse(readFileSync(path.join(ROOT, 'node_modules/undici/package.json'), 'utf8')).version;
}

const PORTKEY_DIRECTORY = path.join(ROOT, 'bench/peers/portkey');
const PORTKEY_SERVER = path.join(PORTKEY_DIRECTORY, 'node_modules/@portkey-ai/gateway/build/start-server.js');

/** (d) Portkey's open-source gateway, pinned in bench/peers/portkey. */
export const portkeyTarget: Target = {
  id: 'portkey',
  label: 'Portkey',
  role: 'peer',
  unavailable: () => null,
  async start(context) {
    let installSeconds = 0;
    if (!existsSync(PORTKEY_SERVER)) {
      context.log('installing Portkey: npm ci --prefix bench/peers/portkey');
      const started = performance.now();
      try {
        execFileSync('npm', ['ci', '--prefix', PORTKEY_DIRECTORY, '--no-audit', '--no-fund'], { stdio: 'pipe' });
      } catch (error) {
        throw new NotAvailable(`not available: npm ci of bench/peers/portkey failed (${String(error).slice(0, 200)})`);
      }
      installSeconds = (performance.now() - started) / 1000;
    }
    const version = JSON.parse(
      readFileSync(path.join(PORTKEY_DIRECTORY, 'node_modules/@portkey-ai/gateway/package.json'), 'utf8'),
    ).version;
    const port = await freePort();
    const child = spawnCommand('portkey', process.execPath, [PORTKEY_SERVER, `--port=${port}`, '--headless'], {
      cwd: PORTKEY_DIRECTORY,
    });
    const origin = `http://127.0.0.1:${port}`;
    try {
      await waitForHttp(`${origin}/`, child, 30_000);
    } catch (error) {
      await child.stop();
      throw error;
    }
    const common = { 'x-portkey-custom-host': `${context.upstreamUrl}/v1` };
    return {
      role: 'peer',
      origin,
      pid: child.pid,
      version: `@portkey-ai/gateway ${version}, ${nodeVersion}`,
      openai: openaiAt('', {
        ...common,
        'x-portkey-provider': 'openai',
        authorization: `Bearer ${UPSTREAM_KEY}`,
      }),
      anthropic: anthropicAt('', { ...common, 'x-portkey-provider': 'anthropic', 'x-api-key': UPSTREAM_KEY }),
      installSeconds,
      stop: () => child.stop(),
    };
  },
};

export const LITELLM_VERSION = '1.100.5';
const LITELLM_VENV = path.join(WORK, 'litellm-venv');
const LITELLM_MARKER = path.join(LITELLM_VENV, `.installed-${LITELLM_VERSION}`);
const LITELLM_WORKERS = 2;

function hasPython(): boolean {
  try {
    execFileSync('python3', ['--version'], { stdio: 'pipe' });
    return true;
  } catch {
    return false;
  }
}

/** (e) LiteLLM's proxy from PyPI in a git-ignored venv, minimal config, no database. */
export const litellmTarget: Target = {
  id: 'litellm',
  label: 'LiteLLM',
  role: 'peer',
  unavailable(context) {
    if (context.quick && process.env.BENCH_LITELLM !== '1') {
      return 'skipped in quick mode: installing LiteLLM takes about 2 minutes and starting it up to a minute (npm run bench measures it; BENCH_LITELLM=1 adds it here)';
    }
    if (!hasPython()) return 'not available: python3 is not installed';
    return null;
  },
  async start(context) {
    let installSeconds = 0;
    if (!existsSync(LITELLM_MARKER)) {
      context.log(`installing LiteLLM ${LITELLM_VERSION} into .bench/litellm-venv (about 2 minutes)`);
      const started = performance.now();
      try {
        if (!existsSync(path.join(LITELLM_VENV, 'bin/pip'))) execFileSync('python3', ['-m', 'venv', LITELLM_VENV]);
        execFileSync(path.join(LITELLM_VENV, 'bin/pip'), ['install', '-q', `litellm[proxy]==${LITELLM_VERSION}`], {
          stdio: 'pipe',
          maxBuffer: 64 * 1024 * 1024,
        });
      } catch (error) {
        throw new NotAvailable(
          `not available: pip install litellm[proxy]==${LITELLM_VERSION} failed (${String(error).slice(0, 300)})`,
        );
      }
      writeFileSync(LITELLM_MARKER, '');
      installSeconds = (performance.now() - started) / 1000;
    }
    const config = path.join(WORK, 'litellm-config.yaml');
    writeFileSync(
      config,
      [
        'model_list:',
        `  - model_name: ${OPENAI_MODEL}`,
        '    litellm_params:',
        `      model: openai/${OPENAI_MODEL}`,
        `      api_base: ${context.upstreamUrl}/v1`,
        `      api_key: ${UPSTREAM_KEY}`,
        `  - model_name: ${ANTHROPIC_MODEL}`,
        '    litellm_params:',
        `      model: anthropic/${ANTHROPIC_MODEL}`,
        `      api_base: ${context.upstreamUrl}`,
        `      api_key: ${UPSTREAM_KEY}`,
        'litellm_settings:',
        '  callbacks: []',
        '  num_retries: 0',
        '  request_timeout: 30',
        '',
      ].join('\n'),
    );
    const port = await freePort();
    const child = spawnCommand(
      'litellm',
      path.join(LITELLM_VENV, 'bin/litellm'),
      ['--config', config, '--host', '127.0.0.1', '--port', String(port), '--num_workers', String(LITELLM_WORKERS)],
      {
        env: {
          LITELLM_LOCAL_MODEL_COST_MAP: 'True',
          LITELLM_LOG: 'ERROR',
          LITELLM_TELEMETRY: 'False',
          DISABLE_SCHEMA_UPDATE: 'True',
        },
      },
    );
    const origin = `http://127.0.0.1:${port}`;
    try {
      await waitForHttp(`${origin}/health/liveliness`, child, 180_000);
    } catch (error) {
      await child.stop();
      throw error;
    }
    const headers = { authorization: 'Bearer sk-anything' };
    return {
      role: 'peer',
      origin,
      pid: child.pid,
      version: `litellm[proxy] ${LITELLM_VERSION} (${LITELLM_WORKERS} workers), ${pythonVersion()}`,
      openai: openaiAt('', headers),
      anthropic: anthropicAt('', headers),
      installSeconds,
      stop: () => child.stop(),
    };
  },
};

function pythonVersion(): string {
  try {
    return execFileSync(path.join(LITELLM_VENV, 'bin/python'), ['--version'], { encoding: 'utf8' }).trim();
  } catch {
    return 'Python ?';
  }
}

export function ensureWorkDirectories(): void {
  for (const directory of ['logs', 'tmp', 'profiles']) mkdirSync(path.join(WORK, directory), { recursive: true });
}

/** Sets how the fake upstream streams (bench/fake-upstream.ts, `/__bench/config`). */
export async function configureUpstream(url: string, shape: StreamShape): Promise<void> {
  const response = await fetch(`${url}/__bench/config`, { method: 'POST', body: JSON.stringify(shape) });
  if (response.status !== 204) throw new Error(`upstream config: HTTP ${response.status}`);
}
