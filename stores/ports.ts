/**
 * @module stores/ports
 * The small interfaces everything above the stores is written against. Each has an embedded adapter
 * (SQLite and in-process maps) and a cluster adapter (Kafka, ClickHouse, Redis); nothing above this
 * file knows which one it runs on.
 */
import type {
  ChannelUsage,
  SessionDetail,
  SessionsPage,
  SessionsQuery,
  UsageGroup,
  UsageGrouping,
  UsageLogsPage,
  UsageLogsQuery,
  UsageOverview,
  UsageOverviewQuery,
} from '../contracts/console-api.ts';
import type { GatewayEvent } from '../contracts/events/index.ts';
import type { ChannelDocument } from '../projector/read-models/channels/evolve.ts';
import type { StoredResponseDocument } from '../projector/read-models/responses/evolve.ts';
import type { SpendCounters } from '../projector/read-models/spend/spend.ts';
import type { TokenDocument } from '../projector/read-models/tokens/evolve.ts';
import type { UserDocument } from '../projector/read-models/users/evolve.ts';

/**
 * Where events are published. Resolves once the events are durable. A log may also take batches
 * serialised ahead of their append (`serialize`, then `appendSerialized` of those bytes, several
 * batches in one append): a batch waiting behind another, or for a retry, is then held as bytes
 * outside the JavaScript heap instead of as the events or their text, which the serving thread's
 * garbage collector would otherwise copy, promote and mark while they wait.
 */
export interface EventLog {
  append(events: readonly GatewayEvent[]): Promise<void>;
  serialize?(events: readonly GatewayEvent[]): Uint8Array;
  appendSerialized?(serialized: readonly Uint8Array[]): Promise<void>;
  /** Requests wait for this log (true) or no longer do (false): a writer that yields CPU should stop. */
  prioritize?(urgent: boolean): void;
  /**
   * The least time, in milliseconds, between the starts of two appends of the publisher's (default 0:
   * the next starts once the last is acknowledged). A log whose every append costs a round trip and a
   * request's fixed work asks for fewer, larger ones.
   */
  readonly appendIntervalMs?: number;
}

export interface TokenUsage {
  usedTokens: number;
  lastUsedAt: string | null;
}

/** Key, account and channel lookups. Reads are synchronous: they are served from memory on the hot path. */
export interface LookupReadModel {
  tokenByKeyHash(keyHash: string): TokenDocument | undefined;
  tokenById(tokenId: string): TokenDocument | undefined;
  tokensOfUser(userId: string): TokenDocument[];
  tokenUsage(tokenId: string): TokenUsage;
  /** What a key (`token:<id>`) or an account (`user:<id>`) spent, per budget period, as projected. */
  spend(owner: string): SpendCounters | undefined;
  userByEmail(email: string): UserDocument | undefined;
  userById(userId: string): UserDocument | undefined;
  users(): UserDocument[];
  channels(): ChannelDocument[];
  /** Called whenever channels change, so routers can rebuild their tables. */
  onChannelsChanged(listener: () => void): void;
  /**
   * Make sure the document is in memory if it exists anywhere: a no-op in embedded mode, a Redis read
   * on a miss in the cluster (a key or account created through another node moments ago).
   */
  ensureKeyHash(keyHash: string): Promise<void>;
  ensureUser(userId: string): Promise<void>;
  ensureEmail(email: string): Promise<void>;
  ensureToken(tokenId: string): Promise<void>;
  /**
   * Reads the accounts again from the shared lookups (cluster), for a decision that must see every
   * node's latest writes; a no-op in embedded mode, where memory is the lookups.
   */
  refreshUsers(userIds: readonly string[]): Promise<void>;
}

export interface UsageReadModel {
  /** `userId` null means every user (admins). */
  overview(query: UsageOverviewQuery & { userId: string | null }): Promise<UsageOverview>;
  logs(query: UsageLogsQuery & { userId: string | null }): Promise<UsageLogsPage>;
  /** Each channel's calls, errors and latency since a time (whole hours: the hourly rollups). */
  channelUsage(sinceMs: number): Promise<ChannelUsage[]>;
  /** The overview's `by_group`: totals per end user, session or metadata value (contracts/console-api-attribution.ts). */
  groups(query: UsageGroupsQuery): Promise<UsageGroup[]>;
  /** Sessions with their totals, the latest or the most expensive first; `userId` null: every user's. */
  sessions(query: SessionsQuery & { userId: string | null }): Promise<SessionsPage>;
  /** One session's requests in order; null when `userId` (null: any) has no request in it. */
  session(sessionId: string, userId: string | null): Promise<SessionDetail | null>;
}

/** What `groups` sums: requests started in [fromMs, toMs) (the overview's whole hours), as the overview filters them. */
export interface UsageGroupsQuery {
  fromMs: number;
  toMs: number;
  userId: string | null;
  model?: string | undefined;
  tokenId?: string | undefined;
  grouping: UsageGrouping;
}

/**
 * Read-your-writes: resolves once every event appended by this process so far is visible in the
 * read models this process serves.
 */
export interface ProjectionSync {
  /**
   * In the cluster the events just appended by this node are applied to the shared lookups
   * (write-through) and to this node's replica before this resolves.
   */
  caughtUp(events?: readonly GatewayEvent[]): Promise<void>;
}

/**
 * Stored Responses by id (`/v1/responses` with `store`), written through events like every projection:
 * after `sync.caughtUp(events)` of a `response.*` event, `find` sees it on every node (embedded: the
 * worker projected it; cluster: the node wrote it through to Redis, which every node reads).
 */
export interface ResponseStore {
  /** The document of an id, tombstones included; null when there is none or it lapsed. Owners are the caller's check. */
  find(responseId: string): Promise<StoredResponseDocument | null>;
  /**
   * What an account's live responses (not deleted, not lapsed) weigh in the store: each document's
   * JSON bytes. The account's storage limit is checked against it; tombstones weigh nothing.
   */
  storedBytes(userId: string): Promise<number>;
}

/** One request's captured payload as stored: its document still compressed (contracts' `payload.captured`). */
export interface StoredPayload {
  requestId: string;
  userId: string;
  tokenId: string;
  capturedAt: string;
  expiresAt: string;
  encoding: 'zstd' | 'gzip';
  data: Uint8Array;
  rawBytes: number;
  storedBytes: number;
}

/**
 * Captured payloads by request id (docs/payloads.md), kept apart from the usage rows. Written by the
 * projector from `payload.*` events; a lapsed or deleted payload is not found. Owners are the caller's check.
 */
export interface PayloadStore {
  find(requestId: string): Promise<StoredPayload | null>;
}

/** The limits of one key; null is unlimited. */
export interface RateLimits {
  rpm: number | null;
  tpm: number | null;
}

/** The state of one limit after a check, for the `x-ratelimit-*` headers. */
export interface RateWindowState {
  limit: number;
  remaining: number;
  /** ms until the window resets */
  resetMs: number;
}

export interface RateLimitDecision {
  allowed: boolean;
  /** which limit refused the request */
  refusedBy: 'requests' | 'tokens' | null;
  requests: RateWindowState | null;
  tokens: RateWindowState | null;
}

/**
 * Per-key request and token budgets in fixed one-minute windows (aligned to the clock minute), shared
 * by every gateway node (Redis in the cluster, in-process in the embedded mode).
 */
export interface RateLimiter {
  /**
   * At request start: refuses when the key already made `rpm` requests, or used `tpm` tokens, in this
   * minute; otherwise counts the request and `estimatedTokens` (the prompt estimate). Atomic.
   */
  acquire(key: string, limits: RateLimits, estimatedTokens: number, now: number): Promise<RateLimitDecision>;
  /** At request end: adds `delta` (actual tokens − the estimate counted at start) to the current minute. */
  adjustTokens(key: string, delta: number, now: number): Promise<void>;
}

/** The outcome of a quota reservation. */
export interface QuotaDecision {
  allowed: boolean;
  /** tokens the key has used, as far as the ledger knows (settled requests, or the projection if more) */
  used: number;
  /** tokens held by the key's requests in flight (this one included when it was allowed) */
  held: number;
}

export interface QuotaReservation {
  quota: number;
  /** the estimate of the request's tokens to hold until it settles */
  amount: number;
  /** the key's used tokens in the projection: the ledger never counts fewer (a restart, a rebuild) */
  projectedUsed: number;
  /** names the hold to settle it (the request id) */
  holdId: string;
  /**
   * when the ledger may forget the account (ms since the epoch): a budget period's account is of no
   * use once every request of the period has settled; absent, it is kept
   */
  lapsesAt?: number;
  /**
   * money, not tokens: when the shared ledger does not answer, reject (the caller refuses the
   * request) instead of letting the request through unheld
   */
  failClosed?: boolean;
}

/**
 * Per-key token quotas (total tokens, all time), and money budgets (nano-dollars per calendar period,
 * an account per period), held atomically for every node: a request reserves an estimate of its
 * tokens (or its maximum cost) before it is relayed and settles to its real usage when it ends. A
 * reservation is refused once used + held reached the quota, so concurrent requests overshoot a
 * quota by at most the one request that crossed it, as long as none uses more than it reserved.
 */
export interface QuotaLedger {
  reserve(tokenId: string, reservation: QuotaReservation, now: number): Promise<QuotaDecision>;
  /** Releases the hold and counts the tokens the request really used. */
  settle(tokenId: string, holdId: string, usedTokens: number): Promise<void>;
}

/**
 * Makes a console command's check and its append one step for every writer, on both stores and
 * across nodes: the command decides over the state it reads inside the guard, and appends before the
 * guard is let go.
 */
export interface CommandGuards {
  /**
   * Claims an email for an account about to be registered: false when another account holds or
   * claims it. Held from before the account's event is appended; given back if the append fails.
   */
  claimEmail(email: string, userId: string): Promise<boolean>;
  releaseEmail(email: string, userId: string): Promise<void>;
  /**
   * Runs `work` while no other `work` of the same scope runs, in this process or on another node.
   * Rejects with `GuardBusyError` when the scope stays taken too long.
   */
  exclusively<T>(scope: string, work: () => Promise<T>): Promise<T>;
}

/** Another command held the guard's scope for longer than a caller should wait. */
export class GuardBusyError extends Error {
  constructor(scope: string) {
    super(`another change of ${scope} is in progress`);
    this.name = 'GuardBusyError';
  }
}

export interface Stores {
  mode: 'embedded' | 'cluster';
  guards: CommandGuards;
  events: EventLog;
  rateLimiter: RateLimiter;
  quotas: QuotaLedger;
  lookups: LookupReadModel;
  usage: UsageReadModel;
  responses: ResponseStore;
  payloads: PayloadStore;
  sync: ProjectionSync;
  /** Events spooled in the local outbox (cluster) and not yet projected (embedded), for `/metrics`. */
  backlog(): Promise<{ outboxDepth: number | null; projectorLagEvents: number | null }>;
  /** Reachability of every store, for `/readyz`. */
  ready(): Promise<boolean>;
  close(): Promise<void>;
}
