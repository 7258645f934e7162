/**
 * @module bench/runtimes
 * Node 20 against Node 24, in one run: the last commit before the move (3191252) on Node 20, the same
 * build on Node 24, and the current code on Node 24, with the Node ceiling on both runtimes. Row 2 vs
 * row 1 is the runtime's effect alone (same bundle, same packages); row 3 vs row 2 is what the code
 * changed since. Windows rotate through every target (A,B,C,D,E, then B,C,D,E,A, …) so the drift of a
 * shared 2-core machine falls on all alike; medians and per-round ratios are reported.
 *
 *   npx tsx bench/runtimes.ts [--seconds=5] [--rounds=6] [--concurrency=32]
 *
 * Needs, prepared once (the current code is copied and built by this script itself):
 *   /tmp/ci-base      a clone at 3191252, `npm ci` and `npm run build:server` under Node 20 (/usr/bin/node)
 *   /tmp/ci-base-n24  `cp -a /tmp/ci-base /tmp/ci-base-n24`, then in it `eval "$(/work/main/scripts/node24)"
 *                     && npm rebuild better-sqlite3` (the same bundle, its native module for Node 24)
 * Writes .bench/runtimes.md.
 */
import { execFileSync, fork, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { agentBody } from './agent-body.ts';
import { closedLoop, type RequestShape } from './load.ts';
import { median } from './paired.ts';
import { forkTs, freePort, ROOT, spawnCommand, treeCpuMs, WORK, waitForHttp } from './processes.ts';
import { CLIENT_KEY, ensureWorkDirectories, OPENAI_MODEL, UPSTREAM_KEY } from './targets.ts';

const option = (name: string, fallback: number) =>
  Number(process.argv.find((arg) => arg.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const SECONDS = option('seconds', 5);
const ROUNDS = option('rounds', 6);
const CONCURRENCY = option('concurrency', 32);
const WINDOW_WARMUP_MS = 1000;
const BASE20 = '/tmp/ci-base';
const BASE24 = '/tmp/ci-base-n24';
const MAIN24 = '/tmp/main-n24';
const NODE20 = '/usr/bin/node';
const run = (command: string, args: string[]) => execFileSync(command, args, { encoding: 'utf8' }).trim();
/** scripts/node24 prints `export PATH=<bin>:"$PATH"`; its binary is the project's Node 24. */
const NODE24 = path.join(/export PATH=(\S+?):"\$PATH"/.exec(run(path.join(ROOT, 'scripts/node24'), []))![1]!, 'node');
const version = (node: string) => run(node, ['--version']);
const git = (directory: string) => run('git', ['-C', directory, 'rev-parse', '--short', 'HEAD']);

type Running = { label: string; origin: string; pid: number; authorization: string; stop(): Promise<void> };

/** The current code as it stands: copied out of the checkout (others build in its dist) and built. */
function prepareMain(): string {
  const commit = git(ROOT);
  rmSync(MAIN24, { recursive: true, force: true });
  mkdirSync(MAIN24, { recursive: true });
  const excludes = ['.git', '.bench', '.services', '.test-dist', 'dist'].map((name) => `--exclude=./${name}`);
  execFileSync('bash', ['-c', `tar -C "$0" -c ${excludes.join(' ')} . | tar -x -C "$1"`, ROOT, MAIN24]);
  execFileSync(NODE24, ['scripts/build-server.mjs'], { cwd: MAIN24, stdio: 'inherit' });
  return commit;
}

/**
 * package.json's start:built (the environment and flags `npm start` uses). A flag either runtime
 * rejects is dropped for both, so the runtimes are compared under the same settings.
 */
function startCommand(tree: string): { environment: Record<string, string>; flags: string[]; dropped: string[] } {
  const script: string = JSON.parse(readFileSync(path.join(tree, 'package.json'), 'utf8')).scripts['start:built'];
  const match = /env((?:\s+[A-Z_]+=\S+)*)\s+node((?:\s+--[\w-]+(?:=\S+)?)*)\s+dist\/gateway\/main\.js/.exec(script);
  if (!match) throw new Error(`unexpected start:built in ${tree}: ${script}`);
  const words = (text: string) => text.trim().split(/\s+/).filter(Boolean);
  const accepted = (node: string, flag: string) => spawnSync(node, [flag, '-e', '0']).status === 0;
  const all = words(match[2]!);
  const flags = all.filter((flag) => accepted(NODE20, flag) && accepted(NODE24, flag));
  const environment = Object.fromEntries(words(match[1]!).map((pair) => pair.split('=') as [string, string]));
  return { environment, flags, dropped: all.filter((flag) => !flags.includes(flag)) };
}

async function startGateway(label: string, tree: string, node: string, upstreamUrl: string): Promise<Running> {
  const directory = mkdtempSync(path.join(WORK, 'tmp', 'runtimes-'));
  const config = path.join(directory, 'gateway.yaml');
  writeFileSync(
    config,
    `channels:\n  - name: bench-openai\n    type: openai\n    base_url: ${upstreamUrl}/v1\n    api_key: ${UPSTREAM_KEY}\n    models: [${OPENAI_MODEL}]\n`,
  );
  const start = startCommand(tree);
  const port = await freePort();
  const env = {
    ...start.environment,
    ...{ DATA_DIR: directory, GATEWAY_CONFIG: config, HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'warn' },
    // The embedded mode, whatever the shell has; and no loader hooks from the tsx that runs this script.
    ...{ KAFKA_BROKERS: '', CLICKHOUSE_URL: '', REDIS_URL: '', NODE_OPTIONS: '' },
  };
  const name = `runtimes-${label.replace(/\W+/g, '-')}`;
  const child = spawnCommand(name, node, [...start.flags, 'dist/gateway/main.js'], { env, cwd: tree });
  const stop = async () => {
    await child.stop();
    rmSync(directory, { recursive: true, force: true });
  };
  const origin = `http://127.0.0.1:${port}`;
  try {
    await waitForHttp(`${origin}/readyz`, child, 60_000);
    return { label, origin, pid: child.pid, authorization: `Bearer ${await createKey(origin)}`, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** A user and a key through the console API, as bench/gateway-targets.ts does. */
async function createKey(origin: string): Promise<string> {
  const post = async (route: string, body: object, cookie = '') => {
    const headers = { origin, 'content-type': 'application/json', cookie };
    const response = await fetch(`${origin}${route}`, { method: 'POST', headers, body: JSON.stringify(body) });
    if (response.status !== 201) throw new Error(`${route}: HTTP ${response.status} ${await response.text()}`);
    return response;
  };
  const password = 'a long bench password 123';
  const register = await post('/api/auth/register', { email: `bench-${Date.now()}@example.com`, password });
  const cookie = register.headers
    .getSetCookie()
    .map((value) => value.split(';')[0])
    .join('; ');
  return ((await (await post('/api/tokens', { name: 'bench' }, cookie)).json()) as { key: string }).key;
}

/**
 * The Node ceiling of the 3191252 tree on each runtime: the same code and the same undici (7.30.2;
 * the current tree's undici 8 needs Node 22.19+), so only the runtime differs between the two.
 */
async function startCeiling(label: string, tree: string, node: string, upstreamUrl: string): Promise<Running> {
  const log = openSync(path.join(WORK, 'logs', `runtimes-${label.replace(/\W+/g, '-')}.log`), 'w');
  const child = fork(path.join(tree, 'bench/node-ceiling.ts'), [upstreamUrl, CLIENT_KEY], {
    cwd: tree,
    execPath: node,
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, NODE_OPTIONS: '' },
    stdio: ['ignore', log, log, 'ipc'],
  });
  closeSync(log);
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (message) => resolve((message as { port: number }).port));
    child.once('exit', (code) => reject(new Error(`${label} exited with code ${code}`)));
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return {
    ...{ label, origin: `http://127.0.0.1:${port}`, pid: child.pid!, authorization: `Bearer ${CLIENT_KEY}` },
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** The bench's tiny request (bench/targets.ts requestShape) and the agent-shaped one. */
const hello = [{ role: 'user', content: 'Hello! Say something short.' }];
const BODIES = {
  tiny: JSON.stringify({ model: OPENAI_MODEL, messages: hello, max_tokens: 64 }),
  'agent 66 KB': agentBody(OPENAI_MODEL),
};

/** Per target, one entry per round. */
type Figures = { rps: number[]; p50: number[]; cpuUs: number[]; errors: number; firstError: string | null };

async function measure(targets: Running[], body: string): Promise<Figures[]> {
  const shape = (target: Running): RequestShape => ({
    origin: target.origin,
    path: '/v1/chat/completions',
    headers: { 'content-type': 'application/json', authorization: target.authorization },
    body,
  });
  for (const target of targets) {
    await closedLoop(shape(target), { concurrency: CONCURRENCY, durationMs: 3000, warmupMs: 0 });
  }
  const figures = targets.map((): Figures => ({ rps: [], p50: [], cpuUs: [], errors: 0, firstError: null }));
  for (let round = 0; round < ROUNDS; round++) {
    // Each round starts one target later, so no target always follows the same neighbour.
    for (let step = 0; step < targets.length; step++) {
      const index = (round + step) % targets.length;
      const target = targets[index]!;
      let before = 0;
      // CPU from the moment the window starts counting (after its unmeasured second of load).
      const mark = setTimeout(() => (before = treeCpuMs(target.pid)), WINDOW_WARMUP_MS);
      const window = await closedLoop(shape(target), {
        concurrency: CONCURRENCY,
        durationMs: SECONDS * 1000,
        warmupMs: WINDOW_WARMUP_MS,
      });
      clearTimeout(mark);
      const figure = figures[index]!;
      figure.cpuUs[round] = ((treeCpuMs(target.pid) - before) * 1000) / Math.max(1, window.requests);
      figure.rps[round] = window.rps;
      figure.p50[round] = window.p50;
      figure.errors += window.errors;
      figure.firstError ??= window.firstError;
    }
    console.log(`  round ${round + 1}/${ROUNDS}: ${figures.map((f) => f.rps[round]!.toFixed(0)).join(', ')} req/s`);
  }
  return figures;
}

const count = (value: number) => Math.round(value).toLocaleString('en-US');
const fixed = (value: number) => value.toFixed(2);

function report(targets: Running[], results: Record<string, Figures[]>, header: string[]): string {
  const names = Object.keys(results);
  const lines = [...header, ''];
  lines.push(
    `| # | target | ${names.map((name) => `${name}: req/s (median) | ${name}: p50 ms | ${name}: CPU µs/req`).join(' | ')} |`,
    `|---|---|${names.map(() => '---:|---:|---:').join('|')}|`,
  );
  targets.forEach((target, index) => {
    const cells = names.flatMap((name) => {
      const figure = results[name]![index]!;
      return [count(median(figure.rps)), fixed(median(figure.p50)), count(median(figure.cpuUs))];
    });
    lines.push(`| ${index + 1} | ${target.label} | ${cells.join(' | ')} |`);
  });
  // Ratios of req/s taken within each round (its windows seconds apart), then the median of the rounds.
  const ratios: Array<[string, number, number]> = [
    ['Node 24 / Node 20, same build (2 / 1)', 1, 0],
    ['current / 3191252, both Node 24 (3 / 2)', 2, 1],
    ['current on 24 / 3191252 on 20 (3 / 1)', 2, 0],
    ['ceiling Node 24 / Node 20 (5 / 4)', 4, 3],
    ['gateway / ceiling, Node 20 (1 / 4)', 0, 3],
    ['gateway / ceiling, Node 24, 3191252 (2 / 5)', 1, 4],
    ['gateway / ceiling, Node 24, current (3 / 5)', 2, 4],
  ];
  // CPU per request too: on a busy shared machine a window's req/s follows what else runs in it; the
  // CPU a process spends per request much less so.
  for (const [metric, key] of [
    ['req/s', 'rps'],
    ['CPU µs/req', 'cpuUs'],
  ] as const) {
    lines.push('', `| ratio of ${metric} | ${names.map((name) => `${name}: median | per round`).join(' | ')} |`);
    lines.push(`|---|${names.map(() => '---:|---|').join('')}`);
    for (const [label, top, bottom] of ratios) {
      const cells = names.flatMap((name) => {
        const [a, b] = [results[name]![top]!, results[name]![bottom]!];
        const perRound = a[key].map((value, round) => value / b[key][round]!);
        return [`**${fixed(median(perRound))}**`, perRound.map(fixed).join(', ')];
      });
      lines.push(`| ${label} | ${cells.join(' | ')} |`);
    }
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  ensureWorkDirectories();
  for (const tree of [BASE20, BASE24]) {
    if (!existsSync(path.join(tree, 'dist/gateway/main.js'))) throw new Error(`${tree}: not prepared (see the header)`);
  }
  const startedAt = new Date();
  const loadBefore = loadavg();
  console.log(`copying and building the current code into ${MAIN24}`);
  const mainCommit = prepareMain();
  const baseCommit = git(BASE20);
  const upstream = await forkTs('runtimes-upstream', 'bench/fake-upstream.ts');
  const upstreamUrl = `http://127.0.0.1:${upstream.port}`;
  const [n20, n24] = [version(NODE20), version(NODE24)];
  const running: Running[] = [];
  try {
    running.push(await startGateway(`gateway ${baseCommit}, Node ${n20}`, BASE20, NODE20, upstreamUrl));
    running.push(await startGateway(`gateway ${baseCommit}, Node ${n24}`, BASE24, NODE24, upstreamUrl));
    running.push(await startGateway(`gateway ${mainCommit} (current), Node ${n24}`, MAIN24, NODE24, upstreamUrl));
    running.push(await startCeiling(`Node ceiling, Node ${n20}`, BASE20, NODE20, upstreamUrl));
    running.push(await startCeiling(`Node ceiling, Node ${n24}`, BASE24, NODE24, upstreamUrl));
    const results: Record<string, Figures[]> = {};
    for (const [name, body] of Object.entries(BODIES)) {
      console.log(`${name} body (${count(Buffer.byteLength(body))} bytes): ${ROUNDS} rounds of ${SECONDS} s windows`);
      results[name] = await measure(running, body);
    }
    const failures = Object.entries(results).flatMap(([name, figures]) =>
      figures.flatMap((f, i) =>
        f.errors ? [`${name}, ${running[i]!.label}: ${f.errors} failed: ${f.firstError}`] : [],
      ),
    );
    const start = startCommand(BASE20);
    const environment = Object.entries(start.environment).map(([key, value]) => `${key}=${value}`);
    const dropped = start.dropped.length ? ` (dropped, not accepted by both: ${start.dropped.join(' ')})` : '';
    const load = (values: number[]) => values.map((value) => value.toFixed(2)).join(', ');
    const seconds = Math.round((Date.now() - startedAt.getTime()) / 1000);
    const cores = run('nproc', []);
    const header = [
      `Run ${startedAt.toISOString()}, ${seconds} s; current code ${mainCommit}, base ${baseCommit}; ${cores} cores; load average (1, 5, 15 min) ${load(loadBefore)} at the start, ${load(loadavg())} at the end.`,
      `c=${CONCURRENCY} closed loop, non-streamed \`POST /v1/chat/completions\` against bench/fake-upstream.ts; ${ROUNDS} rounds, each a ${SECONDS} s window per target after 1 s of unmeasured load, the order rotating by one target per round.`,
      `Gateways embedded (own DATA_DIR), started as start:built does: ${environment.join(' ')} node ${start.flags.join(' ')}${dropped}. Bodies: tiny ${count(Buffer.byteLength(BODIES.tiny))} bytes, agent ${count(Buffer.byteLength(BODIES['agent 66 KB']))} bytes.`,
      failures.length ? `Failed requests: ${failures.join('; ')}` : 'No failed requests.',
    ];
    const markdown = report(running, results, header);
    writeFileSync(path.join(WORK, 'runtimes.md'), `${markdown}\n`);
    writeFileSync(
      path.join(WORK, 'runtimes.json'),
      JSON.stringify({ header, targets: running.map((t) => t.label), results }),
    );
    console.log(`\n${markdown}\n\nwritten to .bench/runtimes.md`);
  } finally {
    for (const target of running.reverse()) await target.stop();
    await upstream.child.stop();
  }
}

await main();
