/**
 * A gateway.db written before requests kept their attribution opens with the columns added: the rows
 * already there read as unattributed, and new attributed traffic is written, filtered and grouped
 * beside them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { groupingOf } from '../../contracts/console-api.ts';
import type { RequestCompleted } from '../../contracts/events/index.ts';
import { generatedTraffic } from '../../test/support/generated-traffic.ts';
import { MemoryLookups } from '../memory-lookups.ts';
import { addAttributionColumns } from './attribution-migration.ts';
import { openDatabase } from './database.ts';
import { SqliteProjectionWriter } from './projection-writer.ts';
import { SqliteUsageQueries } from './usage-queries.ts';

const directory = mkdtempSync(path.join(tmpdir(), 'attribution-migration-'));
const start = Date.parse('2025-06-01T05:00:00.000Z');
afterAll(() => rmSync(directory, { recursive: true, force: true }));

it('adds the attribution columns to an older file, its rows unattributed, and writes new ones beside them', async () => {
  const older = openDatabase(directory);
  const events = generatedTraffic(200, start, 3_000_000, 3, true);
  new SqliteProjectionWriter(older, new MemoryLookups()).apply(
    events.map((event, index) => ({ position: index + 1, event })),
  );
  older.exec(`DROP INDEX requests_session;
    ALTER TABLE requests DROP COLUMN end_user; ALTER TABLE requests DROP COLUMN session_id;
    ALTER TABLE requests DROP COLUMN metadata;`);
  const before = older.prepare('SELECT count(*) FROM requests').pluck().get();
  older.close();

  const reopened = openDatabase(directory);
  const writer = new SqliteProjectionWriter(reopened, new MemoryLookups());
  const columns = reopened.prepare("SELECT name FROM pragma_table_info('requests')").pluck().all();
  expect(columns).toEqual(expect.arrayContaining(['end_user', 'session_id', 'metadata']));
  expect(addAttributionColumns(reopened)).toBe(false);
  const template = events.find(
    (event): event is RequestCompleted => event.type === 'request.completed' && !!event.body.userId,
  )!;
  const attributed: RequestCompleted = {
    ...template,
    eventId: '0190b2c4-8f3e-7a11-8000-0000000000ff',
    body: {
      ...template.body,
      requestId: 'attributed-1',
      attribution: { endUser: 'alice', sessionId: 's-1', metadata: { feature: 'search' } },
    },
  };
  writer.apply([{ position: events.length + 1, event: attributed }]);

  const queries = new SqliteUsageQueries(reopened);
  const groups = await queries.groups({
    fromMs: start,
    toMs: start + 3_600_000,
    userId: null,
    grouping: groupingOf('metadata.feature'),
  });
  expect(groups.map((group) => [group.group, group.calls])).toEqual(
    expect.arrayContaining([
      ['search', 1],
      [null, before],
    ]),
  );
  reopened.close();
});
