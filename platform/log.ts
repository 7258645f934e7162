/**
 * @module platform/log
 * One JSON line per log record on stdout (errors on stderr), so log shippers need no parsing rules.
 * Every role logs through here; the gateway's per-request line is built on `write` in gateway/log.ts.
 * The line goes straight to the stream, not through console.log nor pino: the per-request line is on
 * the relay's hot path, and this is the fastest of the three (docs/performance.md, "The log line").
 * Writes to a file or a terminal are synchronous; to a pipe they may queue, so a role that exits calls
 * `flushLogs` first.
 * Never pass secrets here: keys appear only as hints, prompts and upstream keys never.
 */

export type Log = (message: string, extra?: Record<string, unknown>) => void;

/** A reader that went away (`gateway | head`) must not crash the process: as console.log, drop the line. */
function ignoreClosedStream(): void {}
process.stdout.on('error', ignoreClosedStream);
process.stderr.on('error', ignoreClosedStream);

export function write(level: string, message: string, extra?: Record<string, unknown>): void {
  const line = `${JSON.stringify({ time: new Date().toISOString(), level, msg: message, ...extra })}\n`;
  if (level === 'error' || level === 'fatal') process.stderr.write(line);
  else process.stdout.write(line);
}

export const log = {
  info: ((message, extra) => write('info', message, extra)) as Log,
  warn: ((message, extra) => write('warn', message, extra)) as Log,
  error: ((message, extra) => write('error', message, extra)) as Log,
  fatal: ((message, extra) => write('fatal', message, extra)) as Log,
};

/** Resolves once every line written so far has left the process (a pipe's reader may be slow). */
export async function flushLogs(): Promise<void> {
  const queued = [process.stdout, process.stderr].filter((stream) => stream.writableLength > 0);
  // A write's callback runs after every write queued before it.
  await Promise.all(queued.map((stream) => new Promise<void>((resolve) => stream.write('', () => resolve()))));
}
