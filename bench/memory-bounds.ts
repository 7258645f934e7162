/**
 * @module bench/memory-bounds
 * Gateway RSS and a bystander's latency under hostile request shapes: `previous_response_id` chains of
 * ~480 KB turns grown as long as the gateway keeps them, 4 continuations of the longest at once, 10
 * streams from an upstream that never ends; another user sends small chat requests at c=4 throughout.
 *   npx tsx bench/memory-bounds.ts [--seconds=20] [--windows=0,1,2,3]      writes .bench/memory-bounds.md
 * One embedded gateway from a bundle built into .bench/tmp (not dist/); the bystander's channel on
 * bench/fake-upstream.ts (a child), the chains' (Anthropic, converted) on one in this process that counts
 * its request bytes, the endless one on a tiny SSE server here; the bystander in a child of its own
 * (this script with --bystander). RSS (/proc VmRSS of the gateway's tree) sampled every 100 ms.
 */
import { execFileSync, fork } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import path from 'node:path';
import { createFastUpstream } from './fake-upstream.ts';
import { closedLoop, type LatencyResult } from './load.ts';
import { forkTs, freePort, ROOT, spawnCommand, treeRss, WORK, waitForHttp } from './processes.ts';
import { ANTHROPIC_MODEL, ensureWorkDirectories, OPENAI_MODEL, UPSTREAM_KEY } from './targets.ts';

const option = (name: string, fallback: number) =>
  Number(process.argv.find((arg) => arg.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const SECONDS = option('seconds', 20);
/** Which of the four windows to run (0 alone, 1 continuations, 2 streams, 3 both), e.g. --windows=0,2. */
const WINDOWS = (process.argv.find((arg) => arg.startsWith('--windows='))?.split('=')[1] ?? '0,1,2,3')
  .split(',')
  .map(Number);
const TURN_CHARS = 480_000;
const ENDLESS_MODEL = 'claude-endless';
/** package.json's start script's flags and malloc settings. */
const NODE_FLAGS = '--enable-source-maps --max-semi-space-size=16 --heap-growing-percent=50 --no-parallel-scavenge';
const MB = (bytes: number) => (bytes / 1e6).toFixed(1);
const hello = [{ role: 'user', content: 'Hello! Say something short.' }];
const BYSTANDER_BODY = JSON.stringify({ model: OPENAI_MODEL, messages: hello, max_tokens: 64 });

if (process.argv[2] === '--bystander') {
  // The child: one closed-loop window at c=4, its result sent back over IPC.
  const [origin, key] = process.argv.slice(3) as [string, string];
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${key}` };
  const shape = { origin, path: '/v1/chat/completions', headers, body: BYSTANDER_BODY };
  process.send!(await closedLoop(shape, { concurrency: 4, durationMs: SECONDS * 1000, warmupMs: 0 }));
  process.exit(0);
}
function bystander(origin: string, key: string): Promise<LatencyResult> {
  const child = fork(path.join(ROOT, 'bench/memory-bounds.ts'), ['--bystander', origin, key, `--seconds=${SECONDS}`], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  return new Promise((resolve, reject) => {
    child.once('message', (result) => resolve(result as LatencyResult));
    child.once('exit', (code) => reject(new Error(`bystander exited with code ${code}`)));
  });
}
/** An upstream that streams Anthropic text deltas of 16 KB without end, as fast as it is read. */
function endlessUpstream(): Server {
  const frame = (payload: { type: string; [member: string]: unknown }) =>
    Buffer.from(`event: ${payload.type}\ndata: ${JSON.stringify(payload)}\n\n`);
  const head = Buffer.concat([
    frame({
      type: 'message_start',
      message: { id: 'msg_endless', type: 'message', role: 'assistant', model: ENDLESS_MODEL, content: [] },
      usage: { input_tokens: 10, output_tokens: 1 },
    }),
    frame({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
  ]);
  const chunk = { type: 'text_delta', text: 'endless '.repeat(2048) };
  const delta = frame({ type: 'content_block_delta', index: 0, delta: chunk });
  return createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(head);
      let open = true;
      response.on('close', () => (open = false));
      const pump = () => {
        while (open && response.write(delta));
        if (open) response.once('drain', pump);
      };
      pump();
    });
  });
}
async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
/** A user and a key through the console API, as bench/runtimes.ts does. */
async function createKey(origin: string, who: string): Promise<string> {
  const post = (route: string, body: object, cookie = '') =>
    fetch(`${origin}${route}`, {
      method: 'POST',
      headers: { origin, 'content-type': 'application/json', cookie },
      body: JSON.stringify(body),
    });
  const password = 'a long bench password 123';
  const register = await post('/api/auth/register', { email: `${who}-${Date.now()}@example.com`, password });
  const cookie = register.headers
    .getSetCookie()
    .map((value) => value.split(';')[0])
    .join('; ');
  const created = await post('/api/tokens', { name: who }, cookie);
  if (created.status !== 201) throw new Error(`create key: HTTP ${created.status} ${await created.text()}`);
  return ((await created.json()) as { key: string }).key;
}
/** A ~`chars` text of varied words (nothing a compressor or a tokenizer short-cuts). */
const text = (chars: number, seed: number) =>
  Array.from({ length: Math.ceil(chars / 4) }, (_, i) => `w${((i * 2654435761 + seed) >>> 0).toString(36)}`)
    .join(' ')
    .slice(0, chars);
async function main(): Promise<void> {
  ensureWorkDirectories();
  const startedAt = new Date();
  const loadBefore = loadavg();
  const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
  const directory = mkdtempSync(path.join(WORK, 'tmp', 'memory-bounds-'));
  console.log('building the bundle');
  execFileSync(process.execPath, ['scripts/build-server.mjs', path.join(directory, 'dist')], { cwd: ROOT });
  const fast = await forkTs('memory-bounds-upstream', 'bench/fake-upstream.ts');
  const counting = createFastUpstream({ chunks: 10, delayMs: 0 });
  let upstreamBytes = 0;
  counting.server.on('request', (request) => request.on('data', (part: Buffer) => (upstreamBytes += part.length)));
  const chainUrl = await listen(counting.server);
  const endless = endlessUpstream();
  const endlessUrl = await listen(endless);
  const channel = (name: string, type: string, url: string, model: string) =>
    `  - name: ${name}\n    type: ${type}\n    base_url: ${url}\n    api_key: ${UPSTREAM_KEY}\n    models: [${model}]\n`;
  const config = path.join(directory, 'gateway.yaml');
  writeFileSync(
    config,
    `channels:\n${channel('bystander', 'openai', `http://127.0.0.1:${fast.port}/v1`, OPENAI_MODEL)}${channel('chain', 'anthropic', chainUrl, ANTHROPIC_MODEL)}${channel('endless', 'anthropic', endlessUrl, ENDLESS_MODEL)}`,
  );
  const port = await freePort();
  const env = {
    ...{ MALLOC_MMAP_THRESHOLD_: '131072', MALLOC_TRIM_THRESHOLD_: '2097152', NODE_OPTIONS: '' },
    ...{ DATA_DIR: directory, GATEWAY_CONFIG: config, HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'warn' },
    ...{ KAFKA_BROKERS: '', CLICKHOUSE_URL: '', REDIS_URL: '' },
  };
  const bundle = path.join(directory, 'dist/gateway/main.js');
  const gateway = spawnCommand('memory-bounds-gateway', process.execPath, [...NODE_FLAGS.split(' '), bundle], { env });
  const origin = `http://127.0.0.1:${port}`;
  let sampler: NodeJS.Timeout | undefined;
  try {
    await waitForHttp(`${origin}/readyz`, gateway, 60_000);
    const [hostileKey, bystanderKey] = [await createKey(origin, 'hostile'), await createKey(origin, 'bystander')];
    let peak = 0;
    sampler = setInterval(() => (peak = Math.max(peak, treeRss(gateway.pid))), 100);
    const rssIdle = treeRss(gateway.pid);
    const auth = { 'content-type': 'application/json', authorization: `Bearer ${hostileKey}` };
    type Reply = { id?: string; error?: { code?: string; message?: string } };
    const call = async (route: string, body?: object) => {
      const init = body ? { method: 'POST', body: JSON.stringify(body) } : {};
      const response = await fetch(`${origin}${route}`, { ...init, headers: auth });
      return { status: response.status, reply: (await response.json()) as Reply };
    };
    const respond = (body: object) => call('/v1/responses', body);
    const kept = async (id: string) => (await call(`/v1/responses/${id}`)).status === 200;
    // A turn over the stored-turn limit: answered, not kept.
    const big = await respond({ model: ANTHROPIC_MODEL, input: text(600_000, 7), store: true });
    const bigKept = big.reply.id ? await kept(big.reply.id) : false;
    // The chain: ~480 KB turns until the gateway refuses one or stops keeping them.
    let last: string | undefined;
    let turns = 0;
    let stop = '';
    const chainStarted = performance.now();
    for (;;) {
      const input = text(TURN_CHARS, turns);
      const { status, reply } = await respond({
        model: ANTHROPIC_MODEL,
        input,
        store: true,
        previous_response_id: last,
      });
      if (status !== 200 || !reply.id) {
        stop = `turn ${turns + 1}: ${status} ${reply.error?.code ?? reply.error?.message?.slice(0, 80)}`;
        break;
      }
      if (!(await kept(reply.id))) {
        stop = `turn ${turns + 1}: answered, not kept`;
        break;
      }
      last = reply.id;
      turns++;
    }
    const chainSeconds = (performance.now() - chainStarted) / 1000;
    const chainUpstream = upstreamBytes;
    const rssAfterChain = treeRss(gateway.pid);
    console.log(`chain: ${turns} turns kept (${stop}), ${MB(chainUpstream)} MB upstream, ${chainSeconds.toFixed(0)} s`);
    type Window = {
      label: string;
      bystander: LatencyResult;
      peak: number;
      end: number;
      settled: number;
      hostile: string[];
    };
    const window = async (label: string, continuations: number, streamCount: number): Promise<Window> => {
      console.log(`window: ${label}, ${SECONDS} s`);
      peak = treeRss(gateway.pid);
      const deadline = performance.now() + SECONDS * 1000;
      const statuses = new Map<string, number>();
      const before = upstreamBytes;
      const continuation = async () => {
        while (performance.now() < deadline) {
          const body = { model: ANTHROPIC_MODEL, input: 'Go on.', store: false, previous_response_id: last };
          const { status, reply } = await respond(body);
          const key = `${status}${reply.error?.code ? ` ${reply.error.code}` : ''}`;
          statuses.set(key, (statuses.get(key) ?? 0) + 1);
        }
      };
      const streams = { count: 0, endedWithError: 0, cut: 0, bytes: 0, maxBytes: 0, maxSeconds: 0, other: '' };
      // A stream still open at the window's end is cut there by the client.
      const windowEnd = AbortSignal.timeout(SECONDS * 1000);
      const stream = async () => {
        while (performance.now() < deadline) {
          const sent = performance.now();
          let bytes = 0;
          let tail = '';
          let status = 0;
          try {
            const response = await fetch(`${origin}/v1/chat/completions`, {
              method: 'POST',
              headers: auth,
              body: JSON.stringify({
                model: ENDLESS_MODEL,
                stream: true,
                messages: [{ role: 'user', content: 'Go.' }],
              }),
              signal: windowEnd,
            });
            status = response.status;
            const reader = response.body!.getReader();
            for (let part = await reader.read(); !part.done; part = await reader.read()) {
              bytes += part.value.length;
              tail = (tail + Buffer.from(part.value).toString('latin1')).slice(-4096);
            }
          } catch (error) {
            if (!windowEnd.aborted) throw error;
            streams.cut++;
            streams.bytes += bytes;
            continue;
          }
          streams.count++;
          streams.bytes += bytes;
          if (/"error"/.test(tail)) streams.endedWithError++;
          else streams.other ||= `${status} …${tail.slice(-200)}`;
          streams.maxBytes = Math.max(streams.maxBytes, bytes);
          streams.maxSeconds = Math.max(streams.maxSeconds, (performance.now() - sent) / 1000);
        }
      };
      const [result] = await Promise.all([
        bystander(origin, bystanderKey),
        ...Array.from({ length: continuations }, continuation),
        ...Array.from({ length: streamCount }, stream),
      ]);
      const end = treeRss(gateway.pid);
      const windowPeak = peak;
      await new Promise((resolve) => setTimeout(resolve, 5000));
      const hostile: string[] = [];
      if (continuations) {
        const done = [...statuses.values()].reduce((a, b) => a + b, 0);
        const each = MB((upstreamBytes - before) / Math.max(1, done));
        const tally = [...statuses].map(([k, v]) => `${v}× ${k}`).join(', ');
        hostile.push(`${label}: continuations ${tally}, ~${each} MB upstream each`);
      }
      if (streamCount) {
        const other = streams.other ? ` (other: ${streams.other})` : '';
        hostile.push(
          `${label}: ${streams.count} endless streams ended, ${streams.endedWithError} by the gateway with an error event${other}, at most ${MB(streams.maxBytes)} MB to the client and ${streams.maxSeconds.toFixed(1)} s each; ${streams.cut} cut by the client at the window's end; ${MB(streams.bytes / SECONDS)} MB/s to the client in all`,
        );
      }
      return { label, bystander: result, peak: windowPeak, end, settled: treeRss(gateway.pid), hostile };
    };
    const plans: Array<[string, number, number]> = [
      ['bystander alone', 0, 0],
      ['+ 4 continuations', 4, 0],
      ['+ 10 endless streams', 0, 10],
      ['+ both at once', 4, 10],
    ];
    const windows: Window[] = [];
    for (const [index, plan] of plans.entries()) if (WINDOWS.includes(index)) windows.push(await window(...plan));
    const ms = (value: number) => value.toFixed(1);
    const averages = (values: number[]) => values.map((value) => value.toFixed(2)).join(', ');
    const row = (name: string, cell: (w: Window) => string) => `| ${name} | ${windows.map(cell).join(' | ')} |`;
    const lines = [
      `Run ${startedAt.toISOString()}, commit ${commit}, ${process.version}, 2 cores shared; load average ${averages(loadBefore)} at the start, ${averages(loadavg())} at the end. Windows of ${SECONDS} s each, hostile requests looping through the window; the bystander (another user) sends small non-streamed chat requests at c=4 throughout.`,
      '',
      row('', (w) => w.label),
      `|---|${windows.map(() => '---:').join('|')}|`,
      row('bystander requests', (w) => String(w.bystander.requests)),
      row(
        'bystander failures',
        ({ bystander: b }) => `${b.errors}${b.firstError ? ` (${b.firstError.slice(0, 60)})` : ''}`,
      ),
      row('bystander p50 ms', (w) => ms(w.bystander.p50)),
      row('bystander p99 ms', (w) => `**${ms(w.bystander.p99)}**`),
      row('bystander max ms', (w) => ms(w.bystander.max)),
      row('gateway RSS peak MB', (w) => `**${MB(w.peak)}**`),
      row('gateway RSS at the end (5 s later) MB', (w) => `${MB(w.end)} (${MB(w.settled)})`),
      '',
      `Gateway RSS ${MB(rssIdle)} MB idle, ${MB(rssAfterChain)} MB after the chain was built.`,
      `One 600 KB turn with store: true: ${big.status}, ${bigKept ? 'kept' : 'answered, not kept (over 512 KiB)'}.`,
      `Chain of ${TURN_CHARS / 1000} KB turns, store: true: ${turns} turns kept, stopped at ${stop}; ${MB(chainUpstream)} MB sent upstream in all, ${chainSeconds.toFixed(0)} s.`,
      ...windows.flatMap((w) => w.hostile).map((line) => `${line}.`),
    ];
    const markdown = lines.join('\n');
    writeFileSync(path.join(WORK, 'memory-bounds.md'), `${markdown}\n`);
    console.log(`\n${markdown}\n\nwritten to .bench/memory-bounds.md`);
  } finally {
    clearInterval(sampler);
    await gateway.stop();
    await fast.child.stop();
    counting.server.closeAllConnections();
    counting.server.close();
    endless.closeAllConnections();
    endless.close();
    rmSync(directory, { recursive: true, force: true });
  }
}
await main();
