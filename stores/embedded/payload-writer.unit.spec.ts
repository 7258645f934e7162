/**
 * The embedded captured-payloads projection on a real SQLite file: a payload appended and caught up is
 * found, and the log keeps its event without the body; it is not found past its retention and the
 * purge deletes its row; a key's erasure and an account's forget their payloads and keep out one
 * that arrives later; a replay and a rebuild keep what was kept, once.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { newEvent } from '../../gateway/events/new-event.ts';
import { openDatabase } from './database.ts';
import { SqliteEventLog } from './event-log.ts';
import { createEmbeddedStores } from './index.ts';
import { PayloadLogCompaction } from './payload-log-compaction.ts';
import { SqlitePayloadWriter } from './payload-writer.ts';
import { rebuildEmbedded } from './rebuild.ts';

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

function directory(): string {
  const made = mkdtempSync(path.join(tmpdir(), 'captured-payloads-'));
  directories.push(made);
  return made;
}

const DAY = 86_400_000;
const data = (text: string) => Buffer.from(text).toString('base64');

const captured = (requestId: string, userId = 'u1', tokenId = 't1', expiresAt = Date.now() + DAY) =>
  newEvent('payload.captured', {
    requestId,
    userId,
    tokenId,
    expiresAt: new Date(expiresAt).toISOString(),
    encoding: 'zstd',
    data: data(`document of ${requestId}`),
    rawBytes: 40,
    storedBytes: 20,
  });

describe('captured payloads, embedded', () => {
  it('finds a payload once projected, empties it in the log, and keeps it through a rebuild', async () => {
    const dataDirectory = directory();
    const stores = await createEmbeddedStores(dataDirectory);
    await stores.events.append([captured('r1'), captured('r1')]);
    await stores.sync.caughtUp();
    const found = await stores.payloads.find('r1');
    expect(Buffer.from(found!.data).toString()).toBe('document of r1');
    // the bytes kept are counted as kept, whatever the event said
    expect(found).toMatchObject({ userId: 'u1', tokenId: 't1', encoding: 'zstd', rawBytes: 40, storedBytes: 14 });
    await stores.close();
    const database = openDatabase(dataDirectory);
    const logged = (database.prepare('SELECT payload FROM event_batches').pluck().all() as string[]).join('');
    database.close();
    expect(logged).toContain('payload.captured');
    expect(logged).not.toContain(data('document of r1'));
    rebuildEmbedded(dataDirectory, () => {});
    const reopened = await createEmbeddedStores(dataDirectory);
    expect(Buffer.from((await reopened.payloads.find('r1'))!.data).toString()).toBe('document of r1');
    await reopened.close();
  });

  it('does not find a payload past its retention, and the purge deletes its row', () => {
    const database = openDatabase(directory());
    const writer = new SqlitePayloadWriter(database);
    const now = Date.now();
    writer.apply([{ position: 1, event: captured('r-lapses', 'u1', 't1', now + 60_000) }], now);
    expect(writer.find('r-lapses', now)).not.toBeNull();
    expect(writer.find('r-lapses', now + 60_001)).toBeNull();
    writer.purge(now + 60_001);
    expect(database.prepare('SELECT count(*) FROM captured_payloads').pluck().get()).toBe(0);
    // a replay of a lapsed payload keeps nothing
    writer.apply([{ position: 1, event: captured('r-lapses', 'u1', 't1', now + 60_000) }], now + 60_001);
    expect(database.prepare('SELECT count(*) FROM captured_payloads').pluck().get()).toBe(0);
    database.close();
  });

  it('forgets an erased key and an erased account, and what of them arrives later', () => {
    const database = openDatabase(directory());
    const writer = new SqlitePayloadWriter(database);
    const events = [
      captured('r-a', 'u2', 't-erased'),
      captured('r-b', 'u2', 't-kept'),
      captured('r-c', 'u3', 't-x'),
      captured('r-d', 'u3', 't-y'),
      newEvent('payloads.deleted', { userId: 'u2', tokenId: 't-erased', reason: 'key_revoked' }),
      newEvent('payloads.deleted', { userId: 'u3', tokenId: null, reason: 'account_deleted' }),
      captured('r-late-key', 'u2', 't-erased'),
      captured('r-late-account', 'u3', 't-z'),
    ];
    writer.apply(events.map((event, index) => ({ position: index + 1, event })));
    const left = database.prepare('SELECT request_id FROM captured_payloads ORDER BY request_id').pluck().all();
    expect(left).toEqual(['r-b']);
    database.close();
  });
});

describe('the log copy of a captured payload', () => {
  it('is emptied only for events projected, a logged batch read in part parsed, one read whole by its pattern', () => {
    const database = openDatabase(directory());
    new SqliteEventLog(database);
    const events = [captured('p1'), captured('p2'), captured('p3')];
    database
      .prepare('INSERT INTO event_batches (first_position, event_count, payload) VALUES (1, 3, ?)')
      .run(JSON.stringify(events));
    const dataOf = () =>
      (JSON.parse(database.prepare('SELECT payload FROM event_batches').pluck().get() as string) as typeof events).map(
        (event) => event.body.data,
      );
    const compaction = new PayloadLogCompaction(database);
    compaction.compact([1], 1);
    expect(dataOf()).toEqual(['', data('document of p2'), data('document of p3')]);
    compaction.compact([2, 3], 3);
    expect(dataOf()).toEqual(['', '', '']);
    database.close();
  });
});
