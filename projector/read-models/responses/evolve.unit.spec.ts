/**
 * The stored-response read model: replaying its events (twice, or in another order) arrives at the
 * same documents; a deletion leaves a tombstone no late `response.stored` undoes; an id is stored once.
 */
import { describe, expect, it } from 'vitest';
import type { EventOfType, GatewayEvent } from '../../../contracts/events/index.ts';
import { newEvent } from '../../../gateway/events/new-event.ts';
import { canHandle, documentIdOf, evolve, RETENTION_MS, type StoredResponseDocument, visibleTo } from './evolve.ts';

const storedBody = (responseId: string, userId = 'u1'): EventOfType<'response.stored'>['body'] => ({
  responseId,
  userId,
  tokenId: 't1',
  requestId: `r-${responseId}`,
  previousResponseId: null,
  channelId: 'c1',
  channelType: 'openai',
  native: false,
  model: 'gpt-4o-mini',
  status: 'completed',
  createdAt: 1_764_000_000,
  usage: { inputTokens: 3, outputTokens: 5 },
  inputItems: [{ type: 'message', role: 'user', content: `question ${responseId}` }],
  outputItems: [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'answer' }] }],
  settings: { instructions: null },
});

function replay(events: readonly GatewayEvent[]): Map<string, StoredResponseDocument> {
  const documents = new Map<string, StoredResponseDocument>();
  for (const event of events) {
    if (!canHandle(event)) continue;
    const id = documentIdOf(event);
    documents.set(id, evolve(documents.get(id) ?? null, event));
  }
  return documents;
}

const occurredAt = '2026-11-26T01:00:00.000Z';
const storedA = newEvent('response.stored', storedBody('resp_a'), occurredAt);
const storedB = newEvent('response.stored', storedBody('resp_b'), occurredAt);
const deletedA = newEvent('response.deleted', { responseId: 'resp_a', userId: 'u1' }, occurredAt);
const log: GatewayEvent[] = [storedA, storedB, deletedA];

describe('stored responses read model', () => {
  it('replaying the log twice gives the same documents as once', () => {
    expect(replay([...log, ...log])).toEqual(replay(log));
    const once = replay(log);
    expect(once.get('resp_b')).toMatchObject({ ...storedB.body, deleted: false, storedAt: occurredAt });
    expect(once.get('resp_b')!.expiresAtMs).toBe(Date.parse(occurredAt) + RETENTION_MS);
  });

  it('a deletion leaves a tombstone without the conversation, and a late stored event does not bring it back', () => {
    const tombstone = replay([deletedA, storedA]).get('resp_a')!;
    expect(tombstone).toMatchObject({ responseId: 'resp_a', userId: 'u1', deleted: true, inputItems: [] });
    expect(replay([storedA, deletedA, storedA]).get('resp_a')).toMatchObject({ deleted: true, outputItems: [] });
    expect(JSON.stringify(tombstone)).not.toContain('question');
  });

  it('the first stored event of an id wins; another account cannot delete it', () => {
    const other = newEvent('response.stored', storedBody('resp_a', 'u2'), occurredAt);
    expect(replay([storedA, other]).get('resp_a')!.userId).toBe('u1');
    const foreignDelete = newEvent('response.deleted', { responseId: 'resp_a', userId: 'u2' }, occurredAt);
    expect(replay([storedA, foreignDelete]).get('resp_a')!.deleted).toBe(false);
  });

  it('is visible only to its owner, until deleted or lapsed', () => {
    const document = replay([storedA]).get('resp_a')!;
    const now = Date.parse(occurredAt);
    expect(visibleTo(document, 'u1', now)).toBe(true);
    expect(visibleTo(document, 'u2', now)).toBe(false);
    expect(visibleTo(document, 'u1', now + RETENTION_MS)).toBe(false);
    expect(visibleTo(replay(log).get('resp_a')!, 'u1', now)).toBe(false);
  });
});
