/**
 * The captured payloads' tables in a real ClickHouse: a payload written (twice, as a redelivery would)
 * is read once; it is not read past its retention and the purge deletes it; a key's erasure, and an
 * account's, hide its payloads at once and keep out one that arrives after the erasure.
 */
import { type ClickHouseClient, createClient } from '@clickhouse/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newEvent } from '../../gateway/events/new-event.ts';
import { ClickHousePayloads } from '../../stores/cluster/clickhouse-payloads.ts';
import { migrateClickHouse } from '../../stores/cluster/connections.ts';
import { type ClusterServices, resolveClusterServices } from './cluster-services.ts';

const services: ClusterServices | null = resolveClusterServices();
const database = `payloads${Date.now().toString(36)}`;
const DAY = 86_400_000;

function captured(requestId: string, userId: string, tokenId: string, expiresAt = Date.now() + DAY) {
  return newEvent('payload.captured', {
    requestId,
    userId,
    tokenId,
    expiresAt: new Date(expiresAt).toISOString(),
    encoding: 'zstd',
    data: Buffer.from(`document of ${requestId}`).toString('base64'),
    rawBytes: 40,
    storedBytes: 20,
  });
}

let client: ClickHouseClient;
let payloads: ClickHousePayloads;

describe.skipIf(services === null)('captured payloads in ClickHouse', () => {
  beforeAll(async () => {
    client = createClient({ url: services!.clickhouseUrl });
    await migrateClickHouse(client, database);
    payloads = new ClickHousePayloads(client, database);
  });

  afterAll(async () => {
    await client?.command({ query: `DROP DATABASE IF EXISTS ${database}` });
    await client?.close();
  });

  const rows = async (requestId: string) =>
    (await (
      await client.query({
        query: `SELECT count() AS n FROM ${database}.captured_payloads WHERE request_id = '${requestId}'`,
        format: 'JSONEachRow',
      })
    ).json()) as Array<{ n: string }>;

  it('reads a redelivered payload once, as written', async () => {
    const event = captured('r-once', 'u1', 't1');
    await payloads.write([event]);
    await payloads.write([event]);
    const found = await payloads.find('r-once');
    expect(found).toMatchObject({ requestId: 'r-once', userId: 'u1', tokenId: 't1', encoding: 'zstd' });
    expect(Buffer.from(found!.data).toString()).toBe('document of r-once');
    expect(found!.capturedAt).toBe(event.occurredAt);
  });

  it('does not read a payload past its retention, and the purge deletes it', async () => {
    await payloads.write([captured('r-lapses', 'u1', 't1', Date.now() + 60_000)]);
    expect(await payloads.find('r-lapses')).not.toBeNull();
    expect(await payloads.find('r-lapses', Date.now() + 120_000)).toBeNull();
    await payloads.purgeLapsed(Date.now() + 120_000);
    await expect.poll(async () => Number((await rows('r-lapses'))[0]!.n), { timeout: 10_000 }).toBe(0);
    expect(await payloads.find('r-once')).not.toBeNull();
  });

  it('forgets an erased key at once, and a payload of it that arrives later', async () => {
    await payloads.write([captured('r-key-a', 'u2', 't-erased'), captured('r-key-b', 'u2', 't-kept')]);
    await payloads.write([newEvent('payloads.deleted', { userId: 'u2', tokenId: 't-erased', reason: 'key_revoked' })]);
    expect(await payloads.find('r-key-a')).toBeNull();
    expect(await payloads.find('r-key-b')).not.toBeNull();
    await payloads.write([captured('r-key-late', 'u2', 't-erased')]);
    expect(Number((await rows('r-key-late'))[0]!.n)).toBe(0);
    await expect.poll(async () => Number((await rows('r-key-a'))[0]!.n), { timeout: 10_000 }).toBe(0);
  });

  it('forgets every key of a deleted account', async () => {
    await payloads.write([captured('r-acct-a', 'u3', 't-a'), captured('r-acct-b', 'u3', 't-b')]);
    await payloads.write([newEvent('payloads.deleted', { userId: 'u3', tokenId: null, reason: 'account_deleted' })]);
    expect(await payloads.find('r-acct-a')).toBeNull();
    expect(await payloads.find('r-acct-b')).toBeNull();
    await payloads.write([captured('r-acct-late', 'u3', 't-c')]);
    expect(await payloads.find('r-acct-late')).toBeNull();
    expect(await payloads.find('r-key-b')).not.toBeNull();
  });
});
