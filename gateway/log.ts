/**
 * @module gateway/log
 * One JSON line per log record on stdout (errors on stderr), so log shippers need no parsing rules.
 * Never pass secrets here: keys appear only as hints.
 */
export type Log = (message: string, extra?: Record<string, unknown>) => void;

function write(level: string, message: string, extra: Record<string, unknown> = {}): void {
  const line = JSON.stringify({ time: new Date().toISOString(), level, msg: message, ...extra });
  if (level === 'error' || level === 'fatal') console.error(line);
  else console.log(line);
}

export const log = {
  info: ((message, extra) => write('info', message, extra)) as Log,
  warn: ((message, extra) => write('warn', message, extra)) as Log,
  error: ((message, extra) => write('error', message, extra)) as Log,
};
