/**
 * The embedded stored-responses projection: a response appended and caught up is found by id on the
 * embedded store; the rebuild (the log replayed into fresh tables), run twice, and the same events
 * applied twice arrive at the same documents; a deletion leaves a tombstone; lapsed rows are forgotten.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { EventOfType } from '../../contracts/events/index.ts';
import { newEvent } from '../../gateway/events/new-event.ts';
import { RETENTION_MS } from '../../projector/read-models/responses/evolve.ts';
import { openDatabase } from './database.ts';
import { createEmbeddedStores } from './index.ts';
import { rebuildEmbedded } from './rebuild.ts';
import { SqliteResponseWriter } from './response-writer.ts';

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

function directory(): string {
  const made = mkdtempSync(path.join(tmpdir(), 'stored-responses-'));
  directories.push(made);
  return made;
}

const stored = (responseId: string, occurredAt = new Date()): EventOfType<'response.stored'> =>
  newEvent(
    'response.stored',
    {
      responseId,
      userId: 'u1',
      tokenId: 't1',
      requestId: `r-${responseId}`,
      previousResponseId: null,
      channelId: 'c1',
      channelType: 'anthropic',
      native: false,
      model: 'claude-sonnet-4-5',
      status: 'completed',
      createdAt: Math.floor(occurredAt.getTime() / 1000),
      usage: { inputTokens: 4, outputTokens: 9 },
      inputItems: [{ type: 'message', role: 'user', content: `question ${responseId}` }],
      outputItems: [{ type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'signature' }],
      settings: { id: responseId, object: 'response' },
    },
    occurredAt,
  );

const ids = ['resp_a', 'resp_b', 'resp_old'];

describe('embedded stored responses', () => {
  it('finds what was appended once caught up, and the rebuild run twice gives the same documents', async () => {
    const data = directory();
    const stores = await createEmbeddedStores(data);
    const log = [
      stored('resp_a'),
      stored('resp_b'),
      stored('resp_old', new Date(Date.now() - RETENTION_MS - 1000)),
      newEvent('response.deleted', { responseId: 'resp_a', userId: 'u1' }),
    ];
    await stores.events.append(log);
    await stores.sync.caughtUp(log);
    const before = await Promise.all(ids.map((id) => stores.responses.find(id)));
    expect(before[0]).toMatchObject({ deleted: true, inputItems: [], outputItems: [] });
    expect(before[1]).toMatchObject({
      responseId: 'resp_b',
      deleted: false,
      outputItems: stored('x').body.outputItems,
    });
    expect(before[2]).toBeNull();
    await stores.close();
    for (let run = 0; run < 2; run++) {
      rebuildEmbedded(data, () => {});
      const reopened = await createEmbeddedStores(data);
      expect(await Promise.all(ids.map((id) => reopened.responses.find(id)))).toEqual(before);
      await reopened.close();
    }
  });

  it('applies the same batch twice to the same rows', () => {
    const database = openDatabase(directory());
    try {
      const writer = new SqliteResponseWriter(database);
      const batch = [
        stored('resp_a'),
        stored('resp_b'),
        newEvent('response.deleted', { responseId: 'resp_b', userId: 'u1' }),
      ];
      const positioned = batch.map((event, index) => ({ position: index + 1, event }));
      writer.apply(positioned);
      const once = ids.map((id) => writer.find(id));
      writer.apply(positioned);
      expect(ids.map((id) => writer.find(id))).toEqual(once);
      expect(once[1]).toMatchObject({ deleted: true });
    } finally {
      database.close();
    }
  });
});
