/**
 * @module gateway/config/connection-settings
 * Limits on what clients may hold of the HTTP server: how long a request may take to arrive, how long an
 * idle keep-alive socket stays, and how many sockets the process and one client address may keep open.
 * They bound the request phase and idle sockets only, never a response being sent: a streamed reply
 * can run for minutes. See docs/reliability.md ("Slow and idle clients").
 */
import { readFileSync } from 'node:fs';
import { integer } from '../../platform/read-integer.ts';

export interface ConnectionSettings {
  /** the whole request, headers and body, must have arrived within this long; 0: no limit */
  requestTimeoutMs: number;
  /** the request headers must have arrived within this long */
  headersTimeoutMs: number;
  /** a keep-alive socket idle this long after its last response is closed */
  keepAliveTimeoutMs: number;
  /** sockets the process keeps open at most; more are closed at once; 0: no cap */
  maxConnections: number;
  /** sockets one client address (an IPv6 /64) keeps open at most; 0: no cap */
  maxConnectionsPerAddress: number;
}

/**
 * The default request deadline lets a body of BODY_LIMIT_BYTES through at this rate (64 KiB/s, about
 * 0.5 Mbit/s: a slow uplink), and is never shorter than a minute.
 */
const SLOWEST_UPLOAD_BYTES_PER_SECOND = 64 * 1024;
const SHORTEST_DEFAULT_REQUEST_TIMEOUT_MS = 60_000;
/** Headers are a few kilobytes: a client still sending them after 20 s is holding a socket, not asking. */
const DEFAULT_HEADERS_TIMEOUT_MS = 20_000;
/**
 * Longer than the 60 s idle timeout of common load balancers and proxies (nginx, AWS ALB), so that they,
 * not the gateway, close an idle connection: a POST sent on a socket the server is closing fails, and
 * many clients do not retry a POST.
 */
const DEFAULT_KEEP_ALIVE_TIMEOUT_MS = 65_000;
/** Where the open-file limit cannot be read (not Linux). */
const FALLBACK_MAX_CONNECTIONS = 10_000;
/** Sockets beyond this cost memory with nothing gained on one process. */
const LARGEST_DEFAULT_MAX_CONNECTIONS = 20_000;

/** The process's open-file limit (Node raises the soft limit to the hard one at start), or null. */
export function openFileLimit(limitsFile = '/proc/self/limits'): number | null {
  try {
    const line = readFileSync(limitsFile, 'utf8')
      .split('\n')
      .find((candidate) => candidate.startsWith('Max open files'));
    const soft = Number(line?.slice('Max open files'.length).trim().split(/\s+/)[0]);
    return Number.isInteger(soft) && soft > 0 ? soft : null;
  } catch {
    return null;
  }
}

/**
 * Half of what the open-file limit leaves after a reserve for the store, logs, console files and cluster
 * clients: each client socket being relayed holds an upstream socket too, and both must still get a
 * descriptor when the cap is reached.
 */
export function defaultMaxConnections(fileLimit: number | null): number {
  if (fileLimit === null) return FALLBACK_MAX_CONNECTIONS;
  const reserve = Math.min(1024, Math.floor(fileLimit / 4));
  return Math.min(LARGEST_DEFAULT_MAX_CONNECTIONS, Math.max(16, Math.floor((fileLimit - reserve) / 2)));
}

export function readConnectionSettings(
  environment: NodeJS.ProcessEnv,
  { bodyLimitBytes, trustProxyHops }: { bodyLimitBytes: number; trustProxyHops: number },
  fileLimit: number | null = openFileLimit(),
): ConnectionSettings {
  const requestTimeoutMs = integer(
    environment.REQUEST_TIMEOUT_MS,
    Math.max(SHORTEST_DEFAULT_REQUEST_TIMEOUT_MS, Math.ceil((bodyLimitBytes / SLOWEST_UPLOAD_BYTES_PER_SECOND) * 1000)),
    'REQUEST_TIMEOUT_MS',
  );
  const headersTimeoutMs = integer(
    environment.HEADERS_TIMEOUT_MS,
    requestTimeoutMs > 0 ? Math.min(DEFAULT_HEADERS_TIMEOUT_MS, requestTimeoutMs) : DEFAULT_HEADERS_TIMEOUT_MS,
    'HEADERS_TIMEOUT_MS',
  );
  if (requestTimeoutMs > 0 && headersTimeoutMs > requestTimeoutMs) {
    throw new Error(
      `HEADERS_TIMEOUT_MS (${headersTimeoutMs}) must not be longer than REQUEST_TIMEOUT_MS (${requestTimeoutMs}): the headers are part of the request.`,
    );
  }
  const maxConnections = integer(environment.MAX_CONNECTIONS, defaultMaxConnections(fileLimit), 'MAX_CONNECTIONS');
  // Behind a proxy every client arrives from the proxy's address: a cap per address would cap the proxy.
  const perAddressDefault =
    trustProxyHops > 0 ? 0 : Math.max(1, Math.floor((maxConnections || defaultMaxConnections(fileLimit)) / 4));
  const keepAliveTimeoutMs = integer(
    environment.KEEP_ALIVE_TIMEOUT_MS,
    DEFAULT_KEEP_ALIVE_TIMEOUT_MS,
    'KEEP_ALIVE_TIMEOUT_MS',
  );
  // Node reads 0 as "never time out": idle sockets would stay for ever.
  if (keepAliveTimeoutMs === 0)
    throw new Error('KEEP_ALIVE_TIMEOUT_MS must be at least 1 (ms); 0 would keep idle sockets for ever.');
  return {
    requestTimeoutMs,
    headersTimeoutMs,
    keepAliveTimeoutMs,
    maxConnections,
    maxConnectionsPerAddress: integer(
      environment.MAX_CONNECTIONS_PER_ADDRESS,
      perAddressDefault,
      'MAX_CONNECTIONS_PER_ADDRESS',
    ),
  };
}
