/**
 * @module bench/payload-capture
 * What payload capture costs (`npm run bench:capture`): the embedded gateway, as it ships (the
 * bundle), relaying the 66 KB agent body non-streamed for two keys, one with capture off and one
 * with it on, in alternating closed-loop windows (paired.ts's method: a busy moment of the shared
 * machine tips both sides of a pair alike); the ratio reported is the median of the pairs. Then the
 * projector's rate with and without payloads, and the bytes stored per request (capture-projector.ts).
 */
import { execFileSync } from 'node:child_process';
import { agentBody } from './agent-body.ts';
import { measureCaptureProjector } from './capture-projector.ts';
import { gatewayEmbeddedTarget } from './gateway-targets.ts';
import { closedLoop, type RequestShape } from './load.ts';
import { forkTs, ROOT, treeCpuMs } from './processes.ts';
import { ensureWorkDirectories, OPENAI_MODEL } from './targets.ts';

const ROUNDS = Number(process.env.BENCH_CAPTURE_ROUNDS ?? 6);
const WINDOW_MS = Number(process.env.BENCH_CAPTURE_WINDOW_MS ?? 4_000);
const CONCURRENCY = 16;
const log = (line: string) => console.log(`[capture] ${line}`);

/** A second account whose key captures payloads for `days`. */
async function capturedKey(origin: string, days: number): Promise<{ key: string; cookie: string }> {
  const headers = { origin, 'content-type': 'application/json' };
  const register = await fetch(`${origin}/api/auth/register`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ email: `capture-${Date.now()}@example.com`, password: 'a long bench password 123' }),
  });
  const cookie = register.headers
    .getSetCookie()
    .map((value) => value.split(';')[0])
    .join('; ');
  const created = await fetch(`${origin}/api/tokens`, {
    method: 'POST',
    headers: { ...headers, cookie },
    body: JSON.stringify({ name: 'captured', payload_capture_days: days }),
  });
  if (created.status !== 201) throw new Error(`create key: HTTP ${created.status} ${await created.text()}`);
  return { key: ((await created.json()) as { key: string }).key, cookie };
}

const shapeFor = (origin: string, key: string): RequestShape => ({
  origin,
  path: '/v1/chat/completions',
  headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
  body: agentBody(OPENAI_MODEL),
});

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main(): Promise<void> {
  ensureWorkDirectories();
  execFileSync('npm', ['run', '--silent', 'build:server'], { cwd: ROOT, stdio: 'inherit' });
  const upstream = await forkTs('capture-upstream', 'bench/fake-upstream.ts');
  const context = { upstreamUrl: `http://127.0.0.1:${upstream.port}`, quick: false, profileDirectory: null, log };
  const gateway = await gatewayEmbeddedTarget.start(context);
  try {
    const off = shapeFor(gateway.origin, gateway.openai!.headers['authorization']!.slice('Bearer '.length));
    const captured = await capturedKey(gateway.origin, 7);
    const on = shapeFor(gateway.origin, captured.key);
    const window = { concurrency: CONCURRENCY, durationMs: WINDOW_MS, warmupMs: 1_000 };
    const ratios: number[] = [];
    const rates = { off: [] as number[], on: [] as number[] };
    // The gateway's CPU per request (its main thread, store worker and zlib pool together): on a
    // machine shared with other work, what a request costs is better told by this than by the rate.
    const cpu = { off: [] as number[], on: [] as number[] };
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? (['off', 'on'] as const) : (['on', 'off'] as const);
      for (const side of order) {
        const before = treeCpuMs(gateway.pid);
        const result = await closedLoop(side === 'off' ? off : on, window);
        // Warm-up requests are in the CPU too: per request of the whole window, warm-up included.
        const all = result.requests + result.rps * (window.warmupMs / 1000);
        cpu[side].push((treeCpuMs(gateway.pid) - before) / all);
        if (result.errors > 0) throw new Error(`${side}: ${result.errors} errors, first: ${result.firstError}`);
        rates[side].push(result.rps);
      }
      ratios.push(rates.on[round]! / rates.off[round]!);
      log(`round ${round + 1}: off ${rates.off[round]!.toFixed(0)} req/s, on ${rates.on[round]!.toFixed(0)} req/s`);
    }
    log(
      `relay, 66 KB agent body, c=${CONCURRENCY}: off ${median(rates.off).toFixed(0)} req/s, on ${median(rates.on).toFixed(0)} req/s`,
    );
    log(
      `capture on / off, median of ${ROUNDS} pairs: ${median(ratios).toFixed(3)} (cost ${((1 - median(ratios)) * 100).toFixed(1)} %)`,
    );
    const [cpuOff, cpuOn] = [median(cpu.off), median(cpu.on)];
    log(
      `gateway CPU per request: off ${cpuOff.toFixed(2)} ms, on ${cpuOn.toFixed(2)} ms (+${((cpuOn / cpuOff - 1) * 100).toFixed(1)} %)`,
    );
    const answer = await fetch(`${gateway.origin}/v1/chat/completions`, {
      method: 'POST',
      headers: on.headers,
      body: on.body,
    });
    const requestId = answer.headers.get('x-request-id')!;
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const payload = await fetch(`${gateway.origin}/api/usage/logs/${requestId}/payload`, {
      headers: { origin: gateway.origin, cookie: captured.cookie },
    });
    const { raw_bytes, stored_bytes } = (await payload.json()) as { raw_bytes: number; stored_bytes: number };
    log(`one relayed payload: ${raw_bytes} bytes before compression, ${stored_bytes} stored (zstd)`);
  } finally {
    await gateway.stop();
    await upstream.child.stop();
  }
  const projector = await measureCaptureProjector();
  log(
    `embedded projector, ${projector.requests} requests: off ${projector.offPerSecond.toFixed(0)} req/s, on ${projector.onPerSecond.toFixed(0)} req/s`,
  );
  log(
    `SQLite file growth per request: off ${projector.fileBytesPerRequestOff.toFixed(0)} B, on ${projector.fileBytesPerRequestOn.toFixed(0)} B (payload ${projector.rawBytes} B raw, ${projector.storedBytes} B zstd)`,
  );
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
