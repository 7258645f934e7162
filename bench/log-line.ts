/**
 * @module bench/log-line
 * What the per-request log line costs, written by the project's JSON writer (platform/log.ts) and by
 * pino, so the logger is chosen by measurement. Each variant writes the same line (the fields of
 * gateway/log.ts's `request`) to stdout; the figures go to stderr. Run it with stdout on a file and on
 * /dev/null; the variants alternate in rounds so the drift of a shared machine touches them alike:
 *
 *   npx tsx bench/log-line.ts > /tmp/log-line.out      npx tsx bench/log-line.ts > /dev/null
 *   (LINES=per round, default 100000; ROUNDS=default 5)
 *
 * pino lost (docs/performance.md, "The log line") and is no longer a dependency: to measure it again,
 * `npm install --no-save pino@9` first; without it the pino variants are left out.
 */
import { write } from '../platform/log.ts';

/** The part of pino's API used here (it is loaded by name so that the bench compiles without it). */
interface PinoModule {
  pino(options: object, stream: unknown): { info(fields: object, message: string): void };
  destination(options: { dest: number; sync: boolean; minLength?: number }): { flush(): void; flushSync(): void };
}
const pinoName = 'pino';
const pinoModule = (await import(pinoName).catch(() => null)) as PinoModule | null;

const linesPerRound = Number(process.env.LINES ?? 100_000);
const rounds = Number(process.env.ROUNDS ?? 5);

function requestFields(index: number): Record<string, unknown> {
  return {
    requestId: `0193a1b2-c3d4-7e5f-8a9b-${String(index).padStart(12, '0')}`,
    clientRequestId: null,
    method: 'POST',
    endpoint: '/v1/chat/completions',
    model: 'gpt-4o-mini',
    channel: 'openai-main',
    status: 200,
    errorType: null,
    stream: false,
    latencyMs: 12,
    firstTokenMs: null,
    promptTokens: 25,
    completionTokens: 9,
    attempts: 1,
    userId: 'user_01',
    tokenId: 'token_01',
  };
}

/** pino configured to write the project's line: `time` as ISO text, `level` as its name, `msg`. */
function pinoLogger({ pino, destination }: PinoModule, sync: boolean) {
  const stream = destination({ dest: 1, sync, minLength: sync ? 0 : 4096 });
  const logger = pino(
    {
      base: null,
      messageKey: 'msg',
      timestamp: () => `,"time":"${new Date().toISOString()}"`,
      formatters: { level: (label: string) => ({ level: label }) },
    },
    stream,
  );
  return { logger, stream };
}

const variants: Record<string, (index: number) => void> = {
  'own writer (console.log)': (index) =>
    console.log(
      JSON.stringify({ time: new Date().toISOString(), level: 'info', msg: 'request', ...requestFields(index) }),
    ),
  'own writer (platform/log.ts: process.stdout.write)': (index) => write('info', 'request', requestFields(index)),
};
const flushes: Array<() => void> = [];
if (pinoModule) {
  const pinoSync = pinoLogger(pinoModule, true);
  const pinoAsync = pinoLogger(pinoModule, false);
  /** pino's fastest line (numeric level, epoch milliseconds): not the project's format, shown as pino's best. */
  const pinoNative = pinoModule.pino({ base: null }, pinoModule.destination({ dest: 1, sync: true }));
  variants['pino, synchronous destination'] = (index) => pinoSync.logger.info(requestFields(index), 'request');
  variants['pino, its own format (sync)'] = (index) => pinoNative.info(requestFields(index), 'request');
  variants['pino, sonic-boom async (4 KiB buffer)'] = (index) => pinoAsync.logger.info(requestFields(index), 'request');
  flushes.push(() => pinoAsync.stream.flushSync());
} else {
  process.stderr.write('pino is not installed: measuring the own writer only\n');
}

const samples = new Map<string, number[]>(Object.keys(variants).map((name) => [name, []]));
for (let round = 0; round < rounds; round++) {
  for (const [name, writeLine] of Object.entries(variants)) {
    const started = process.hrtime.bigint();
    for (let index = 0; index < linesPerRound; index++) writeLine(index);
    if (name.startsWith('pino, sonic')) for (const flush of flushes) flush();
    samples.get(name)!.push(Number(process.hrtime.bigint() - started) / linesPerRound);
  }
}
for (const flush of flushes) flush();

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const reference = median(samples.get('own writer (console.log)')!);
for (const [name, values] of samples) {
  const ns = median(values);
  process.stderr.write(
    `${name.padEnd(52)} ${ns.toFixed(0).padStart(6)} ns/line (median of ${rounds})  ${(ns / reference).toFixed(2)} × own writer (console.log)\n`,
  );
}
