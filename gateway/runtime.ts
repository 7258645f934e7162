/**
 * @module gateway/runtime
 * Assembles one gateway process from its settings: stores, keys, seeded admin and channels, router,
 * relay, console app and HTTP server. Tests build the same runtime with their own settings.
 */
import { existsSync } from 'node:fs';
import type { Server } from 'node:http';
import path from 'node:path';
import { log } from '../platform/log.ts';
import { PROJECT_ROOT } from '../platform/project-root.ts';
import { createEmbeddedStores } from '../stores/embedded/index.ts';
import type { Stores } from '../stores/ports.ts';
import { ensureAdmin } from './commands/accounts.ts';
import { seedChannels } from './commands/channels.ts';
import type { CommandContext } from './commands/command-context.ts';
import { readConfigFile } from './config/config-file.ts';
import type { Settings } from './config/settings.ts';
import { createConsoleApp } from './console-api/app.ts';
import { EventPublisher } from './events/publisher.ts';
import { createLogger } from './log.ts';
import { GatewayMetrics } from './metrics.ts';
import { PriceBook } from './pricing/price-book.ts';
import { BacklogAdmission } from './relay/backlog-admission.ts';
import { ChannelRouter } from './relay/channel-router.ts';
import { CircuitBreakers } from './relay/circuit-breaker.ts';
import { ResponseState } from './relay/response-state.ts';
import { StreamPacer } from './relay/stream-pacer.ts';
import { UpstreamClient } from './relay/upstream-client.ts';
import { deriveKeys, loadServerSecret } from './security/server-secret.ts';
import { createGatewayServer, newLifecycle, type ServerLifecycle } from './server.ts';

const consoleRoot = path.join(PROJECT_ROOT, 'console');
/** The built console when there is one, else the placeholder page. */
export const CONSOLE_DIRECTORY = existsSync(path.join(consoleRoot, 'dist/index.html'))
  ? path.join(consoleRoot, 'dist')
  : path.join(consoleRoot, 'placeholder');

export interface GatewayRuntime {
  server: Server;
  stores: Stores;
  publisher: EventPublisher;
  router: ChannelRouter;
  breakers: CircuitBreakers;
  metrics: GatewayMetrics;
  lifecycle: ServerLifecycle;
  context: CommandContext;
  seeded: { admin: string | null; channels: number };
  /**
   * Graceful stop: stop accepting, let requests and streams in flight finish for up to `graceMs`
   * (SHUTDOWN_GRACE_MS), cut what is left, then flush the events and close the stores.
   */
  close(graceMs?: number): Promise<void>;
}

export interface RuntimeOptions {
  /** `all` (npm start) also runs the cluster projector in this process; `gateway` serves only. */
  role?: 'all' | 'gateway';
}

export async function createRuntime(
  settings: Settings,
  { role = 'all' }: RuntimeOptions = {},
): Promise<GatewayRuntime> {
  const secret = loadServerSecret({
    secret: settings.secret,
    dataDirectory: settings.dataDirectory,
    required: settings.cluster !== null,
  });
  const keys = deriveKeys(secret);
  // The cluster adapters (kafkajs, redis, the ClickHouse client: some 40 MB) load only in cluster mode.
  const cluster = settings.cluster ? await import('../stores/cluster/index.ts') : null;
  const stores: Stores =
    cluster && settings.cluster
      ? await cluster.createClusterStores(settings.cluster, settings.dataDirectory, log.warn)
      : await createEmbeddedStores(settings.dataDirectory, {
          workerNice: settings.storeWorkerNice,
          responseRetentionMs: settings.responseRetentionMs,
        });
  // In embedded mode the projector is always in-process; in the cluster it is a role of its own.
  const projector =
    cluster && settings.cluster && role === 'all'
      ? await cluster.startClusterProjector(settings.cluster, log.warn)
      : null;
  const context: CommandContext = { stores, keys, now: () => new Date() };
  const admin = await ensureAdmin(context, settings.adminEmail, settings.adminPassword);
  const configFile = settings.configFile ? readConfigFile(settings.configFile) : null;
  // Seeded with no file too: channels the file used to hold are then handed to the console.
  const channels = await seedChannels(context, configFile?.channels ?? []);
  const publisher = new EventPublisher(stores.events, {
    onError: (error) => log.error('event append failed; will retry', { error: String(error) }),
  });
  const router = new ChannelRouter(stores.lookups, keys.encryption, {
    allowPrivateUpstreams: settings.allowPrivateUpstreams,
  });
  const upstream = new UpstreamClient({
    headersTimeoutMs: settings.upstreamHeadersTimeoutMs,
    idleTimeoutMs: settings.upstreamIdleTimeoutMs,
    connectTimeoutMs: settings.upstreamConnectTimeoutMs,
    replyLimitBytes: settings.upstreamReplyLimitBytes,
    frameLimitBytes: settings.upstreamFrameLimitBytes,
    streamLimitBytes: settings.upstreamStreamLimitBytes,
  });
  const breakers = new CircuitBreakers({
    failureThreshold: settings.circuitFailureThreshold,
    openMs: settings.circuitOpenMs,
    onChange: (channelId, state) =>
      (state === 'open' ? log.warn : log.info)('channel circuit breaker changed', { channelId, state }),
  });
  const metrics = new GatewayMetrics({ publisher, stores });
  const lifecycle = newLifecycle();
  const prices = new PriceBook(configFile?.prices);
  const consoleApp = createConsoleApp(context, {
    secureCookies: settings.secureCookies,
    trustProxyHops: settings.trustProxyHops,
    publicOrigin: settings.publicOrigin,
    signIn: settings.signIn,
    consoleDirectory: CONSOLE_DIRECTORY,
    channelHealth: (channelId) => breakers.health(channelId),
    allowPrivateUpstreams: settings.allowPrivateUpstreams,
    authRateLimits: settings.authRateLimits,
    prices,
  });
  const server = createGatewayServer(
    {
      lookups: stores.lookups,
      router,
      upstream,
      publisher,
      hashingKey: keys.keyHashing,
      bodyLimitBytes: settings.bodyLimitBytes,
      captureMaxBytes: settings.captureMaxBytes,
      maxAttempts: settings.upstreamMaxAttempts,
      admission: new BacklogAdmission({
        depth: () => publisher.depth,
        limit: settings.eventQueueLimit,
        onUrgency: (urgent) => stores.events.prioritize?.(urgent),
      }),
      retryBackoffMs: settings.upstreamRetryBackoffMs,
      rateLimiter: stores.rateLimiter,
      quotas: stores.quotas,
      breakers,
      metrics,
      logger: createLogger(settings.logLevel),
      trustProxyHops: settings.trustProxyHops,
      prices,
      responses: new ResponseState(stores, {
        conversationLimitBytes: settings.conversationLimitBytes,
        accountLimitBytes: settings.storedResponsesAccountLimitBytes,
      }),
      compactionKey: keys.compaction,
      streamPacer: new StreamPacer(settings.streamBytesPerSecondPerKey),
    },
    consoleApp,
    { connections: settings.connections, metrics, metricsToken: settings.metricsToken, lifecycle },
  );
  return {
    server,
    stores,
    publisher,
    router,
    breakers,
    metrics,
    lifecycle,
    context,
    seeded: { admin, channels },
    async close(graceMs = settings.shutdownGraceMs) {
      lifecycle.draining = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      const deadline = Date.now() + graceMs;
      // Idle keep-alive connections go now; busy ones once their response ends (they get `connection: close`).
      while (lifecycle.inFlight > 0 && Date.now() < deadline) {
        server.closeIdleConnections();
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      if (lifecycle.inFlight > 0) {
        log.warn('shutdown grace period over; closing the connections still open', { inFlight: lifecycle.inFlight });
      }
      server.closeAllConnections();
      await closed;
      // Cut requests end within moments (their upstream call is aborted); their events must still go out.
      const handlersDeadline = Date.now() + 5_000;
      while (lifecycle.relaying > 0 && Date.now() < handlersDeadline) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      await publisher.close();
      await upstream.close();
      await projector?.close();
      await stores.close();
    },
  };
}
