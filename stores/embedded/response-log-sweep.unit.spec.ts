/**
 * A file from before stored responses kept their log position: its rows have none, a deleted
 * response is a tombstone whose conversation is still in the log, and a lapsed one was purged with
 * its conversation left in the log. Opened now, the log's compaction reaches them all (the deleted and
 * the lapsed turns' text leaves the log and the file), a live old row gets its position so that a
 * later deletion compacts it as it does a new one, and a kept turn stays whole.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { newEvent } from '../../gateway/events/new-event.ts';
import * as responses from '../../projector/read-models/responses/evolve.ts';
import { storedResponseEvent } from '../../test/support/request-events.ts';
import { openDatabase } from './database.ts';
import { SqliteEventLog } from './event-log.ts';
import { createEmbeddedStores } from './index.ts';

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

const DAY_MS = 86_400_000;
const marker = (name: string) => `old-format-${name}-`.repeat(5_000);

const stored = (responseId: string, at: Date) => storedResponseEvent(responseId, marker(responseId), { at });

/** The file as a gateway before log positions left it: projected up to its last event. */
function oldFormatFile(data: string): void {
  const now = Date.now();
  const deleted = stored('resp_deleted', new Date(now - DAY_MS));
  const lapsed = stored('resp_lapsed', new Date(now - 40 * DAY_MS));
  const later = stored('resp_later', new Date(now - DAY_MS));
  const kept = stored('resp_kept', new Date(now - DAY_MS));
  const deletion = newEvent('response.deleted', { responseId: 'resp_deleted', userId: 'u1' });
  const database = openDatabase(data);
  database.exec(`DROP TABLE stored_responses;
    CREATE TABLE stored_responses (response_id TEXT PRIMARY KEY, body TEXT NOT NULL, expires_at INTEGER NOT NULL);`);
  const log = new SqliteEventLog(database);
  log.append([deleted, lapsed, later, kept, deletion]);
  const row = database.prepare('INSERT INTO stored_responses (response_id, body, expires_at) VALUES (?, ?, ?)');
  const documentOf = (...events: Array<Parameters<typeof responses.evolve>[1]>) =>
    events.reduce<responses.StoredResponseDocument | null>(
      (document, event) => responses.evolve(document, event),
      null,
    )!;
  for (const document of [documentOf(deleted, deletion), documentOf(later), documentOf(kept)]) {
    row.run(document.responseId, JSON.stringify(document), document.expiresAtMs);
  }
  database.prepare("INSERT INTO projection_checkpoint (name, position) VALUES ('embedded', 5)").run();
  database.close();
}

describe('the log of a file from before stored responses kept their log position', () => {
  it('loses the conversations of deleted and lapsed responses, and of an old row deleted later', async () => {
    const data = mkdtempSync(path.join(tmpdir(), 'old-format-'));
    directories.push(data);
    oldFormatFile(data);
    const logged = (database = openDatabase(data)) => {
      const text = JSON.stringify(new SqliteEventLog(database).readAfter(0, 100).map((entry) => entry.event));
      database.close();
      return text;
    };
    expect(logged()).toContain(marker('resp_deleted'));

    const stores = await createEmbeddedStores(data);
    expect(await stores.responses.find('resp_kept')).toMatchObject({ inputItems: [{ content: marker('resp_kept') }] });
    const deletion = newEvent('response.deleted', { responseId: 'resp_later', userId: 'u1' });
    await stores.events.append([deletion]);
    await stores.sync.caughtUp([deletion]);
    await stores.close();

    const text = logged();
    expect(text).not.toContain(marker('resp_deleted'));
    expect(text).not.toContain(marker('resp_lapsed'));
    expect(text).not.toContain(marker('resp_later'));
    expect(text).toContain(marker('resp_kept'));
    const bytes = readFileSync(path.join(data, 'gateway.db'));
    for (const gone of ['resp_deleted', 'resp_lapsed', 'resp_later']) expect(bytes.includes(marker(gone))).toBe(false);
  });
});
