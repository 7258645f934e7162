/**
 * @module platform/log
 * One JSON line per log record on stdout (errors on stderr), so log shippers need no parsing rules.
 * Every role logs through here; the gateway's per-request line is built on `write` in gateway/log.ts.
 * Never pass secrets here: keys appear only as hints, prompts and upstream keys never.
 */

export type Log = (message: string, extra?: Record<string, unknown>) => void;

export function write(level: string, message: string, extra: Record<string, unknown> = {}): void {
  const line = JSON.stringify({ time: new Date().toISOString(), level, msg: message, ...extra });
  if (level === 'error' || level === 'fatal') console.error(line);
  else console.log(line);
}

export const log = {
  info: ((message, extra) => write('info', message, extra)) as Log,
  warn: ((message, extra) => write('warn', message, extra)) as Log,
  error: ((message, extra) => write('error', message, extra)) as Log,
};
