/**
 * @module bench/gateway-targets
 * (c) This gateway as it ships: the bundle `npm start` runs (built at the start of every bench run),
 * with the environment and Node flags of package.json's start script, on a fresh DATA_DIR, with an
 * OpenAI, an Anthropic and a Gemini channel on the fake upstream and a user and key created through the console
 * API. In the cluster the gateway runs its serving role (`--role=gateway`) beside a projector
 * process, as a deployment would; the gateway's own process is the one measured.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { type Child, freePort, ROOT, servicePids, spawnCommand, WORK, waitForHttp } from './processes.ts';
import {
  ANTHROPIC_MODEL,
  anthropicAt,
  GEMINI_MODEL,
  nodeVersion,
  OPENAI_MODEL,
  openaiAt,
  type Target,
  UPSTREAM_KEY,
} from './targets.ts';

function gitDescription(): string {
  try {
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'gateway', 'stores', 'contracts', 'projector'], {
      cwd: ROOT,
      encoding: 'utf8',
    }).trim();
    return dirty ? `${commit}+local changes` : commit;
  } catch {
    return 'unknown commit';
  }
}

function gatewayConfig(directory: string, upstreamUrl: string): string {
  const file = path.join(directory, 'gateway.yaml');
  writeFileSync(
    file,
    [
      'channels:',
      '  - name: bench-openai',
      '    type: openai',
      `    base_url: ${upstreamUrl}/v1`,
      `    api_key: ${UPSTREAM_KEY}`,
      `    models: [${OPENAI_MODEL}]`,
      '  - name: bench-anthropic',
      '    type: anthropic',
      `    base_url: ${upstreamUrl}`,
      `    api_key: ${UPSTREAM_KEY}`,
      `    models: [${ANTHROPIC_MODEL}]`,
      '  - name: bench-gemini',
      '    type: gemini',
      `    base_url: ${upstreamUrl}`,
      `    api_key: ${UPSTREAM_KEY}`,
      `    models: [${GEMINI_MODEL}]`,
      '',
    ].join('\n'),
  );
  return file;
}

/** Registers a user and creates a key through the console API, as a script would. */
async function createKey(origin: string): Promise<{ key: string; cookie: string }> {
  const headers = { origin, 'content-type': 'application/json' };
  const register = await fetch(`${origin}/api/auth/register`, {
    method: 'POST',
    headers,
    // A fresh address each time: the cluster's stores outlive a bench run.
    body: JSON.stringify({ email: `bench-${Date.now()}@example.com`, password: 'a long bench password 123' }),
  });
  if (register.status !== 201) throw new Error(`register: HTTP ${register.status} ${await register.text()}`);
  const cookie = register.headers
    .getSetCookie()
    .map((value) => value.split(';')[0])
    .join('; ');
  const created = await fetch(`${origin}/api/tokens`, {
    method: 'POST',
    headers: { ...headers, cookie },
    body: JSON.stringify({ name: 'bench' }),
  });
  if (created.status !== 201) throw new Error(`create key: HTTP ${created.status} ${await created.text()}`);
  return { key: ((await created.json()) as { key: string }).key, cookie };
}

/** The bench user's calls and errors in the data overview, as the console shows them (the last day). */
async function usageTotals(origin: string, cookie: string): Promise<{ calls: number; errors: number }> {
  const now = Date.now();
  const query = new URLSearchParams({
    from: new Date(now - 86_400_000).toISOString(),
    to: new Date(now + 3_600_000).toISOString(),
  });
  const response = await fetch(`${origin}/api/usage/overview?${query}`, { headers: { origin, cookie } });
  if (response.status !== 200) throw new Error(`usage overview: HTTP ${response.status} ${await response.text()}`);
  const { totals } = (await response.json()) as { totals: { calls: number; errors: number } };
  return { calls: totals.calls, errors: totals.errors };
}

function gatewayTarget(mode: 'embedded' | 'cluster'): Target {
  const clusterVariables = ['KAFKA_BROKERS', 'CLICKHOUSE_URL', 'REDIS_URL'];
  return {
    id: mode === 'embedded' ? 'gateway' : 'gateway-cluster',
    label: mode === 'embedded' ? 'gateway (embedded)' : 'gateway (cluster)',
    role: 'gateway',
    unavailable() {
      if (mode === 'embedded') return null;
      const missing = clusterVariables.filter((name) => !process.env[name]);
      return missing.length
        ? `not available: cluster mode not configured (${missing.join(', ')} unset; \`eval "$(scripts/services up)"\` starts Kafka, ClickHouse and Redis and sets them)`
        : null;
    },
    async start(context) {
      const directory = mkdtempSync(path.join(WORK, 'tmp', `gateway-${mode}-`));
      const start = startCommand();
      const environment: Record<string, string> = {
        ...start.environment,
        DATA_DIR: directory,
        GATEWAY_CONFIG: gatewayConfig(directory, context.upstreamUrl),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        // Cluster mode requires a fixed secret; the embedded one generates its own under DATA_DIR.
        ...(mode === 'cluster' ? { GATEWAY_SECRET: 'bench-secret-0123456789abcdef0123456789abcdef' } : {}),
      };
      // The embedded target must not pick up half a cluster configuration from the shell.
      if (mode === 'embedded') for (const name of clusterVariables) environment[name] = '';
      const profile = context.profileDirectory ? ['--cpu-prof', `--cpu-prof-dir=${context.profileDirectory}`] : [];
      // Extra Node flags for a look from outside, e.g. BENCH_GATEWAY_NODE_FLAGS=--perf-basic-prof for perf.
      profile.push(...(process.env.BENCH_GATEWAY_NODE_FLAGS?.split(' ').filter(Boolean) ?? []));
      const port = await freePort();
      environment['PORT'] = String(port);
      const role = mode === 'cluster' ? ['--role=gateway'] : [];
      const children: Child[] = [];
      const stopAll = async () => {
        for (const child of children.reverse()) await child.stop();
        rmSync(directory, { recursive: true, force: true });
      };
      const child = spawnCommand(
        `gateway-${mode}`,
        process.execPath,
        [...start.flags, ...profile, process.env.BENCH_GATEWAY_BUNDLE ?? GATEWAY_BUNDLE, ...role],
        {
          env: environment,
        },
      );
      children.push(child);
      const origin = `http://127.0.0.1:${port}`;
      const companions: Array<{ name: string; pid: number }> = [];
      try {
        await waitForHttp(`${origin}/readyz`, child, 60_000);
        if (mode === 'cluster') {
          // BENCH_PROJECTOR_NODE_FLAGS: the same for the projector (e.g. --cpu-prof --cpu-prof-dir=…).
          const projectorFlags = process.env.BENCH_PROJECTOR_NODE_FLAGS?.split(' ').filter(Boolean) ?? [];
          const projector = spawnCommand(
            'projector',
            process.execPath,
            [...start.flags, ...projectorFlags, PROJECTOR_BUNDLE],
            {
              env: environment,
            },
          );
          children.push(projector);
          companions.push({ name: 'projector', pid: projector.pid }, ...servicePids());
        }
      } catch (error) {
        await stopAll();
        throw error;
      }
      const { key, cookie } = await createKey(origin);
      const version = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version;
      return {
        role: 'gateway',
        origin,
        pid: child.pid,
        version: `llm-gateway ${version} (${gitDescription()}), ${nodeVersion}`,
        openai: openaiAt('', { authorization: `Bearer ${key}` }),
        anthropic: anthropicAt('', { 'x-api-key': key }),
        installSeconds: 0,
        companions,
        usageTotals: () => usageTotals(origin, cookie),
        stop: stopAll,
      };
    },
  };
}

/**
 * Built by `npm run build:server` at the start of every bench run. BENCH_GATEWAY_BUNDLE names another
 * build instead (a copy of dist/ from another commit, for an A/B between two builds).
 */
const GATEWAY_BUNDLE = path.join(ROOT, 'dist/gateway/main.js');
const PROJECTOR_BUNDLE = path.join(ROOT, 'dist/projector/main.js');

/**
 * The environment and Node flags `npm start` runs the bundle with (package.json: `NAME=value … node
 * --flag … dist/gateway/main.js`), so the bench runs it the same way.
 */
function startCommand(): { environment: Record<string, string>; flags: string[] } {
  const start: string = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts.start;
  const command = /((?:\b[A-Z_]+=\S+\s+)*)node((?:\s+--[\w-]+(?:=\S+)?)*)\s+dist\/gateway\/main\.js/.exec(start);
  if (!command) throw new Error(`package.json's start script does not run dist/gateway/main.js with node: ${start}`);
  const words = (text: string) => text.trim().split(/\s+/).filter(Boolean);
  const environment = Object.fromEntries(
    words(command[1]!).map((assignment) => [
      assignment.slice(0, assignment.indexOf('=')),
      assignment.slice(assignment.indexOf('=') + 1),
    ]),
  );
  return { environment, flags: words(command[2]!) };
}

export const gatewayEmbeddedTarget = gatewayTarget('embedded');
export const gatewayClusterTarget = gatewayTarget('cluster');
