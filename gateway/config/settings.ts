/**
 * @module gateway/config/settings
 * Every setting comes from the environment (documented in the README's configuration reference). Where
 * the data lives is read in platform/storage-settings.ts, which the projector shares.
 */

import { integer } from '../../platform/read-integer.ts';
import { readStorageSettings, type StorageSettings } from '../../platform/storage-settings.ts';
import { DEFAULT_CAPTURE_MAX_BYTES } from '../capture/payload-capture.ts';
import { originOf } from '../security/origin.ts';
import { type AuthRateLimitSettings, readAuthRateLimitSettings } from './auth-rate-limit-settings.ts';
import { type ConnectionSettings, readConnectionSettings } from './connection-settings.ts';
import { readSignInSettings, type SignInSettings } from './sign-in-settings.ts';

export interface Settings extends StorageSettings {
  port: number;
  host: string;
  secret: string | undefined;
  configFile: string | undefined;
  adminEmail: string | undefined;
  adminPassword: string | undefined;
  /** largest request body accepted on the relay endpoints, in bytes */
  bodyLimitBytes: number;
  /** each side of a captured payload is cut (and marked) past this many bytes */
  captureMaxBytes: number;
  /** largest `previous_response_id` conversation relayed, its stored turns and the request together, in bytes */
  conversationLimitBytes: number;
  /** the most an account's stored responses may weigh (their documents as JSON), in bytes; 0 is no limit */
  storedResponsesAccountLimitBytes: number;
  /** give up on an upstream that sends no response headers within this time */
  upstreamHeadersTimeoutMs: number;
  /** give up on an upstream that goes silent this long between two frames */
  upstreamIdleTimeoutMs: number;
  /** give up connecting to an upstream after this long */
  upstreamConnectTimeoutMs: number;
  /** upstream attempts per request, across channels and keys */
  upstreamMaxAttempts: number;
  /** largest upstream reply read whole (non-streamed), and largest single SSE frame, in bytes */
  upstreamReplyLimitBytes: number;
  upstreamFrameLimitBytes: number;
  /** largest streamed upstream reply relayed, all of its events together, in bytes */
  upstreamStreamLimitBytes: number;
  /** what one key's streams together relay per second on a node, in bytes; faster upstreams wait (0: no pace) */
  streamBytesPerSecondPerKey: number;
  /** base of the exponential backoff between attempts (100 ms, 200 ms, … with jitter) */
  upstreamRetryBackoffMs: number;
  /** consecutive failures that open a channel's circuit breaker */
  circuitFailureThreshold: number;
  /** how long an open breaker keeps the channel out before a probe */
  circuitOpenMs: number;
  /** X-Forwarded-For hops to trust for the client IP; 0 uses the socket address */
  trustProxyHops: number;
  /** request deadlines, keep-alive and connection caps of the HTTP server */
  connections: ConnectionSettings;
  /** events a node may hold before it refuses new relay requests (its event log is that far behind) */
  eventQueueLimit: number;
  /** nice value of the embedded store's worker thread (Linux); 0 runs it at the relay's priority */
  storeWorkerNice: number;
  /** how long a SIGTERM waits for in-flight requests and streams */
  shutdownGraceMs: number;
  /** when set, GET /metrics needs `Authorization: Bearer <token>` */
  metricsToken: string | undefined;
  /** mark session cookies Secure (set when the gateway is served over TLS) */
  secureCookies: boolean;
  /** the site's origin as browsers reach it (`PUBLIC_URL`), which state-changing console calls must name */
  publicOrigin: string | undefined;
  /** console channels may call private, loopback and link-local addresses (`ALLOW_PRIVATE_UPSTREAMS`) */
  allowPrivateUpstreams: boolean;
  /** the sign-in and password-check limits (`AUTH_RATE_LIMIT_*`) */
  authRateLimits: AuthRateLimitSettings;
  /** local passwords and single sign-on */
  signIn: SignInSettings;
  logLevel: string;
}

/** `scheme://host[:port]` of PUBLIC_URL; anything but an http(s) URL stops the start with why. */
function publicOrigin(value: string | undefined): string | undefined {
  if (!value) return undefined;
  const origin = originOf(value);
  if (!origin) {
    throw new Error(
      `PUBLIC_URL must be the http(s) URL browsers reach the gateway at, e.g. https://gateway.example.com (got "${value}").`,
    );
  }
  return origin;
}

function trustProxy(value: string | undefined): number {
  if (value === undefined || value === '' || value === 'off' || value === 'false') return 0;
  if (value === 'true') return 1;
  return integer(value, 0, 'TRUST_PROXY');
}

export function readSettings(environment: NodeJS.ProcessEnv = process.env): Settings {
  const storage = readStorageSettings(environment);
  const bodyLimitBytes = integer(environment.BODY_LIMIT_BYTES, 20 * 1024 * 1024, 'BODY_LIMIT_BYTES');
  const trustProxyHops = trustProxy(environment.TRUST_PROXY);
  const origin = publicOrigin(environment.PUBLIC_URL);
  return {
    port: integer(environment.PORT, 3000, 'PORT'),
    host: environment.HOST ?? '0.0.0.0',
    dataDirectory: storage.dataDirectory,
    secret: environment.GATEWAY_SECRET || undefined,
    configFile: environment.GATEWAY_CONFIG || undefined,
    adminEmail: environment.ADMIN_EMAIL || undefined,
    adminPassword: environment.ADMIN_PASSWORD || undefined,
    bodyLimitBytes,
    captureMaxBytes: integer(
      environment.PAYLOAD_CAPTURE_MAX_BYTES,
      DEFAULT_CAPTURE_MAX_BYTES,
      'PAYLOAD_CAPTURE_MAX_BYTES',
    ),
    // What a continuation may cost the process: its expanded turns are held, converted and written
    // out whole, a few copies at once. 8 MiB is twice the text of the longest context a model takes.
    conversationLimitBytes: integer(environment.CONVERSATION_LIMIT_BYTES, 8 * 1024 * 1024, 'CONVERSATION_LIMIT_BYTES'),
    storedResponsesAccountLimitBytes: integer(
      environment.STORED_RESPONSES_ACCOUNT_LIMIT_BYTES,
      256 * 1024 * 1024,
      'STORED_RESPONSES_ACCOUNT_LIMIT_BYTES',
    ),
    responseRetentionMs: storage.responseRetentionMs,
    upstreamHeadersTimeoutMs: integer(environment.UPSTREAM_HEADERS_TIMEOUT_MS, 120_000, 'UPSTREAM_HEADERS_TIMEOUT_MS'),
    upstreamIdleTimeoutMs: integer(environment.UPSTREAM_IDLE_TIMEOUT_MS, 300_000, 'UPSTREAM_IDLE_TIMEOUT_MS'),
    upstreamConnectTimeoutMs: integer(environment.UPSTREAM_CONNECT_TIMEOUT_MS, 10_000, 'UPSTREAM_CONNECT_TIMEOUT_MS'),
    upstreamMaxAttempts: Math.max(1, integer(environment.UPSTREAM_MAX_ATTEMPTS, 3, 'UPSTREAM_MAX_ATTEMPTS')),
    upstreamReplyLimitBytes: integer(environment.UPSTREAM_REPLY_LIMIT_BYTES, 32 << 20, 'UPSTREAM_REPLY_LIMIT_BYTES'),
    upstreamFrameLimitBytes: integer(environment.UPSTREAM_FRAME_LIMIT_BYTES, 8 << 20, 'UPSTREAM_FRAME_LIMIT_BYTES'),
    upstreamStreamLimitBytes: integer(environment.UPSTREAM_STREAM_LIMIT_BYTES, 64 << 20, 'UPSTREAM_STREAM_LIMIT_BYTES'),
    streamBytesPerSecondPerKey: integer(
      environment.STREAM_BYTES_PER_SECOND_PER_KEY,
      8 * 1024 * 1024,
      'STREAM_BYTES_PER_SECOND_PER_KEY',
    ),
    upstreamRetryBackoffMs: integer(environment.UPSTREAM_RETRY_BACKOFF_MS, 100, 'UPSTREAM_RETRY_BACKOFF_MS'),
    circuitFailureThreshold: integer(environment.CIRCUIT_FAILURE_THRESHOLD, 5, 'CIRCUIT_FAILURE_THRESHOLD'),
    circuitOpenMs: integer(environment.CIRCUIT_OPEN_MS, 30_000, 'CIRCUIT_OPEN_MS'),
    trustProxyHops,
    connections: readConnectionSettings(environment, { bodyLimitBytes, trustProxyHops }),
    shutdownGraceMs: integer(environment.SHUTDOWN_GRACE_MS, 30_000, 'SHUTDOWN_GRACE_MS'),
    eventQueueLimit: Math.max(1, integer(environment.EVENT_QUEUE_LIMIT, 50_000, 'EVENT_QUEUE_LIMIT')),
    storeWorkerNice: Math.min(19, integer(environment.STORE_WORKER_NICE, 19, 'STORE_WORKER_NICE')),
    metricsToken: environment.METRICS_TOKEN || undefined,
    secureCookies: environment.SECURE_COOKIES === 'true',
    publicOrigin: origin,
    allowPrivateUpstreams: environment.ALLOW_PRIVATE_UPSTREAMS === 'true',
    authRateLimits: readAuthRateLimitSettings(environment),
    signIn: readSignInSettings(environment, origin),
    cluster: storage.cluster,
    logLevel: environment.LOG_LEVEL ?? 'info',
  };
}
