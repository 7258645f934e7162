/**
 * @module stores/embedded/schema
 * The embedded store is one SQLite file: the event log and every projection side by side, so a
 * projection batch and its checkpoint commit in one transaction (exactly-once without a broker).
 * Dropping the projection tables and replaying the log (event-log-schema.ts) rebuilds them. Tables
 * and columns added after the first release are also created, and filled from the existing data, by
 * usage-migration.ts.
 */
import { rollupTableDefinition, usageRollups } from './usage-rollups.ts';

export const projectionSchema = `
CREATE TABLE IF NOT EXISTS projection_checkpoint (
  name TEXT PRIMARY KEY,
  position INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS documents (
  collection TEXT NOT NULL,
  id TEXT NOT NULL,
  body TEXT NOT NULL,
  PRIMARY KEY (collection, id)
);
CREATE TABLE IF NOT EXISTS requests (
  request_id TEXT PRIMARY KEY,
  started_at INTEGER NOT NULL,
  user_id TEXT NOT NULL DEFAULT '',
  token_id TEXT NOT NULL DEFAULT '',
  endpoint TEXT,
  model_requested TEXT,
  model_served TEXT,
  channel_id TEXT,
  stream INTEGER,
  status INTEGER,
  error_type TEXT,
  error_message TEXT,
  latency_ms REAL,
  first_token_ms REAL,
  client_aborted INTEGER,
  prompt_tokens INTEGER NOT NULL DEFAULT 0,
  completion_tokens INTEGER NOT NULL DEFAULT 0,
  cached_tokens INTEGER NOT NULL DEFAULT 0,
  cache_write_tokens INTEGER NOT NULL DEFAULT 0,
  reasoning_tokens INTEGER NOT NULL DEFAULT 0,
  usage_source TEXT,
  -- the caller's own X-Request-Id, for tracing; not unique (added later: usage-migration.ts)
  client_request_id TEXT,
  -- the upstream calls as JSON ([{channelId, keyIndex, status, error, latencyMs}]), for the log's
  -- detail panel (added later: usage-migration.ts)
  attempts TEXT,
  -- the request's cost in nano-dollars from its usage event; NULL when unpriced or before its usage
  -- (added later: usage-migration.ts)
  cost_nano_usd INTEGER,
  request_applied INTEGER NOT NULL DEFAULT 0,
  usage_applied INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS requests_user_time ON requests (user_id, started_at);
CREATE INDEX IF NOT EXISTS requests_time ON requests (started_at);
-- The overview's 95th percentile once read raw latencies through an index keyed by hour and latency.
-- Every request landed on a random page of it, so a projection batch wrote about one page per request
-- and more as the hour filled; the rollups' histograms answer instead (latency-percentile.ts).
DROP INDEX IF EXISTS requests_hour_latency;
${usageRollups.map(rollupTableDefinition).join('\n')}
CREATE INDEX IF NOT EXISTS usage_hourly_hour ON usage_hourly (hour);
CREATE TABLE IF NOT EXISTS token_usage (
  token_id TEXT PRIMARY KEY,
  used_tokens INTEGER NOT NULL DEFAULT 0,
  last_used_at TEXT
);
-- What each key ('token:<id>') and account ('user:<id>') spent per budget period, as JSON
-- (projector/read-models/spend): folded from each request's cost when its usage is first counted.
CREATE TABLE IF NOT EXISTS spend (
  owner TEXT PRIMARY KEY,
  counters TEXT NOT NULL
);
-- Stored Responses by id (projector/read-models/responses), documents and tombstones, as JSON; rows
-- past expires_at (ms) are forgotten (response-writer.ts). Each with its owner, its JSON bytes (0 for
-- a tombstone: the account's storage limit counts the rest) and the log position of the event whose
-- conversation goes when the row is deleted or lapses (owner, bytes, position added later: response-writer.ts).
CREATE TABLE IF NOT EXISTS stored_responses (
  response_id TEXT PRIMARY KEY,
  body TEXT NOT NULL,
  expires_at INTEGER NOT NULL,
  user_id TEXT NOT NULL DEFAULT '',
  bytes INTEGER NOT NULL DEFAULT 0,
  log_position INTEGER
);
CREATE INDEX IF NOT EXISTS stored_responses_expiry ON stored_responses (expires_at);
-- The projection migrations already applied to this file (see usage-migration.ts).
CREATE TABLE IF NOT EXISTS projection_migrations (
  name TEXT PRIMARY KEY
);
`;

export const projectionTables = [
  'projection_checkpoint',
  'documents',
  'requests',
  ...usageRollups.map((table) => table.name),
  'token_usage',
  'spend',
  'stored_responses',
  'projection_migrations',
];
