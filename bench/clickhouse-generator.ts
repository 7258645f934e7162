/**
 * @module bench/clickhouse-generator
 * Ten million requests in a few tens of seconds: the rows are made inside ClickHouse with
 * `INSERT … SELECT … FROM numbers(N)` straight into the product's raw tables, then the hourly rollups
 * are rebuilt from them by the product's own back-fill (the projector's aggregation, in SQL). Going
 * through Kafka and the projector would take an hour at 10,000,000 requests; the projector's own
 * speed is measured separately.
 *
 * The traffic is shaped like `TrafficGenerator`'s: 200 users of whom a few are heavy (user = 200 · u³,
 * so the busiest sends about a sixth of all requests), 2 keys each, 5 models (the cheap ones more
 * often), spread evenly over the last 30 days, about 2% failed. Every figure of a request is a hash of
 * its number, so its `requests` row and its `usage` row agree and a run is reproducible.
 */
import type { ClickHouseClient } from '@clickhouse/client';
import { backfillRollups } from '../stores/cluster/clickhouse-rollup-backfill.ts';
import { identifier, integerLiteral } from '../stores/cluster/clickhouse-sql.ts';
import { slotsKeptFrom } from '../stores/cluster/clickhouse-usage-writer.ts';

const DAY_MS = 24 * 3_600_000;

/** A uniform number in [0, 1) drawn from the request number; `draw` picks an independent stream. */
const uniform = (draw: number) => `(intHash64(number * 16 + ${draw}) % 1000000 / 1000000)`;

/** The columns both raw tables share, as SELECT expressions over `numbers(N)`. */
function commonColumns(now: number): string {
  const models = "['gpt-4o-mini', 'gpt-4o', 'claude-sonnet-4-5', 'claude-haiku-4-5', 'deepseek-chat']";
  const channels = "['ch-openai', 'ch-openai', 'ch-anthropic', 'ch-anthropic', 'ch-deepseek']";
  return `
    concat('gen-', toString(number)) AS request_id,
    toUInt64(${integerLiteral(now)} - intHash64(number * 16 + 1) % ${integerLiteral(30 * DAY_MS)}) AS started_at_ms,
    toDateTime(intDiv(started_at_ms, 1000)) AS started_at,
    toUInt32(floor(200 * pow(${uniform(2)}, 3))) AS user_number,
    concat('user-', toString(user_number)) AS user_id,
    concat('token-', toString(user_number), '-', toString(intHash64(number * 16 + 3) % 2)) AS token_id,
    toUInt32(floor(pow(${uniform(4)}, 2) * 5)) + 1 AS model_number,
    arrayElement(${models}, model_number) AS model,
    arrayElement(${channels}, model_number) AS channel_id,
    ${uniform(5)} < 0.02 AS failed`;
}

export interface Generated {
  rawSeconds: number;
  rollupSeconds: number;
}

/** Raw rows of `requests` requests in the 30 days before `now`, then every rollup built from them. */
export async function generateRequests(
  client: ClickHouseClient,
  database: string,
  requests: number,
  now: number,
): Promise<Generated> {
  const start = performance.now();
  await generateRawRows(client, database, requests, now);
  const raw = performance.now();
  await backfillRollups(client, database, { includeKeyRollup: true, force: true, slotsKeptFrom: slotsKeptFrom(now) });
  return { rawSeconds: (raw - start) / 1000, rollupSeconds: (performance.now() - raw) / 1000 };
}

async function generateRawRows(
  client: ClickHouseClient,
  database: string,
  requests: number,
  now: number,
): Promise<void> {
  const db = identifier(database);
  const source = `FROM numbers(${integerLiteral(requests)})`;
  // One statement per table, spread over ClickHouse's own threads; progress headers keep the HTTP
  // connection busy past the client's idle timeout.
  const settings = {
    max_block_size: '262144',
    send_progress_in_http_headers: 1,
    http_headers_progress_interval_ms: '10000',
  } as const;
  await client.command({
    query: `INSERT INTO ${db}.requests (request_id, started_at, started_at_ms, user_id, token_id, endpoint,
        model_requested, model_served, channel_id, stream, status, error_type, error_message, latency_ms,
        first_token_ms, has_first_token, client_aborted, event_id)
      SELECT request_id, started_at, started_at_ms, user_id, token_id,
        if(startsWith(model, 'claude'), 'messages', 'chat.completions') AS endpoint, model, model, channel_id,
        toUInt8(${uniform(6)} < 0.5) AS stream, toUInt16(if(failed, 502, 200)),
        if(failed, 'upstream_error', ''), if(failed, 'The upstream provider failed.', ''),
        200 + ${uniform(7)} * 3000 AS latency_ms, if(stream, 100 + ${uniform(8)} * 500, 0), stream, 0, ''
      FROM (SELECT number, ${commonColumns(now)} ${source})`,
    clickhouse_settings: settings,
  });
  await client.command({
    query: `INSERT INTO ${db}.usage (request_id, started_at, user_id, token_id, model, channel_id, prompt_tokens,
        completion_tokens, cached_tokens, cache_write_tokens, reasoning_tokens, estimated, event_id)
      SELECT request_id, started_at, user_id, token_id, model, channel_id,
        20 + intHash64(number * 16 + 9) % 2000, if(failed, 0, 5 + intHash64(number * 16 + 10) % 800), 0, 0, 0, 0, ''
      FROM (SELECT number, ${commonColumns(now)} ${source})`,
    clickhouse_settings: settings,
  });
}
