/**
 * What stored responses cost the embedded file, and that it is given back: each account's live
 * responses are weighed (tombstones weigh nothing); a deletion or a lapse (judged by an injected
 * clock, with a configured retention) takes the conversation out of the projection and out of the
 * event log, and the pages it took go back to the file system; a replay of the compacted log arrives
 * at the same documents.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { newEvent } from '../../gateway/events/new-event.ts';
import { storedResponseEvent } from '../../test/support/request-events.ts';
import { openDatabase } from './database.ts';
import { SqliteEventLog } from './event-log.ts';
import { createEmbeddedStores } from './index.ts';
import { rebuildEmbedded } from './rebuild.ts';
import { SqliteResponseWriter } from './response-writer.ts';

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

function directory(): string {
  const made = mkdtempSync(path.join(tmpdir(), 'stored-space-'));
  directories.push(made);
  return made;
}

const DAY_MS = 86_400_000;

const stored = (responseId: string, text: string, userId = 'u1', at = new Date()) =>
  storedResponseEvent(responseId, text, { userId, at });

/** A turn's text that is easy to look for in the file's bytes. */
const secret = (index: number) => `conversation-marker-${index}-`.repeat(20_000);

function fileBytes(data: string): number {
  return statSync(path.join(data, 'gateway.db')).size;
}

describe('the space stored responses take in the embedded file', () => {
  it('weighs each account’s live responses, and forgets them at the configured lapse by the injected clock', () => {
    const database = openDatabase(directory());
    try {
      const writer = new SqliteResponseWriter(database, 2 * DAY_MS);
      const start = Date.parse('2025-03-01T00:00:00Z');
      const log = new SqliteEventLog(database);
      const events = [
        stored('resp_a', 'a'.repeat(1000), 'u1', new Date(start)),
        stored('resp_b', 'b'.repeat(1000), 'u1', new Date(start + DAY_MS)),
        stored('resp_c', 'c'.repeat(1000), 'u2', new Date(start)),
      ];
      log.append(events);
      const batch = () => log.readAfter(0, 100);
      database.transaction(() => writer.apply(batch(), start + DAY_MS))();
      const one = writer.storedBytes('u1', start + DAY_MS) / 2;
      expect(one).toBeGreaterThan(1000);
      expect(writer.storedBytes('u2', start + DAY_MS)).toBeGreaterThan(1000);
      // Two days after resp_a was stored it has lapsed; resp_b, stored a day later, is still kept.
      const later = start + 2 * DAY_MS;
      expect(writer.find('resp_a', later)).toBeNull();
      expect(writer.find('resp_b', later)).not.toBeNull();
      database.transaction(() => writer.purge(later))();
      expect(writer.storedBytes('u1', later)).toBeCloseTo(one, -2);
      expect(writer.storedBytes('u2', later)).toBe(0);
      // The lapsed turns' conversations are gone from the log too; the kept one's is not.
      const logged = JSON.stringify(batch().map((entry) => entry.event));
      expect(logged).not.toContain('a'.repeat(1000));
      expect(logged).not.toContain('c'.repeat(1000));
      expect(logged).toContain('b'.repeat(1000));
      expect(batch().map((entry) => entry.event.eventId)).toEqual(events.map((event) => event.eventId));
    } finally {
      database.close();
    }
  });

  it('gives a deleted response’s bytes back: out of the rows, the log and the file', async () => {
    const data = directory();
    const stores = await createEmbeddedStores(data);
    const turns = Array.from({ length: 12 }, (_, index) => stored(`resp_${index}`, secret(index)));
    await stores.events.append(turns);
    await stores.sync.caughtUp(turns);
    const kept = await stores.responses.storedBytes('u1');
    expect(kept).toBeGreaterThan(12 * 400_000);
    await stores.close();
    const full = fileBytes(data);

    const reopened = await createEmbeddedStores(data);
    const deletions = turns
      .slice(1)
      .map((turn) => newEvent('response.deleted', { responseId: turn.body.responseId, userId: 'u1' }));
    await reopened.events.append(deletions);
    await reopened.sync.caughtUp(deletions);
    expect(await reopened.responses.storedBytes('u1')).toBeLessThan(kept / 10);
    expect(await reopened.responses.find('resp_3')).toMatchObject({ deleted: true, inputItems: [] });
    await reopened.close();

    // The file shrank by about the eleven turns twice over (their rows and their events), and no
    // byte of their text is left in it; the kept turn's is.
    const emptied = fileBytes(data);
    expect(full - emptied).toBeGreaterThan(2 * 11 * 400_000);
    const bytes = readFileSync(path.join(data, 'gateway.db'));
    expect(bytes.includes('conversation-marker-0-')).toBe(true);
    for (let index = 1; index < 12; index++) expect(bytes.includes(`conversation-marker-${index}-`)).toBe(false);
    const database = new Database(path.join(data, 'gateway.db'), { readonly: true });
    expect(database.pragma('freelist_count', { simple: true })).toBe(0);
    database.close();

    // The compacted log replays to the same documents.
    const before = await (async () => {
      const again = await createEmbeddedStores(data);
      const found = await Promise.all(turns.map((turn) => again.responses.find(turn.body.responseId)));
      await again.close();
      return found;
    })();
    rebuildEmbedded(data, () => {});
    const rebuilt = await createEmbeddedStores(data);
    expect(await Promise.all(turns.map((turn) => rebuilt.responses.find(turn.body.responseId)))).toEqual(before);
    await rebuilt.close();
  });
});
