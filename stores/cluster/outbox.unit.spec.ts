/**
 * The outbox keeps which of its events are in doubt (a send of them may have reached Kafka), on a
 * real SQLite file: a failed send's events and a drain's are, events only queued behind are not,
 * and a file of the release without the column has every event in doubt.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { requestEvents } from '../../test/support/request-events.ts';
import { Outbox } from './outbox.ts';

describe('the outbox’s events in doubt', () => {
  const directories: string[] = [];
  const directory = () => {
    const made = mkdtempSync(path.join(tmpdir(), 'outbox-doubt-'));
    directories.push(made);
    return made;
  };
  afterEach(() => {
    for (const made of directories.splice(0)) rmSync(made, { recursive: true, force: true });
  });

  it('marks a failed send’s events and a drain’s in doubt, durably, and not those that only queued', () => {
    const where = directory();
    const outbox = new Outbox(where);
    outbox.add(requestEvents('failed'), true);
    outbox.add(requestEvents('queued'));
    outbox.add(requestEvents('later'));
    expect(outbox.peek(10).inDoubt).toEqual([true, true, false, false, false, false]);
    // A drain takes the first four and starts sending them.
    outbox.markInDoubt(outbox.peek(4).through);
    outbox.close();
    const reopened = new Outbox(where);
    expect(reopened.peek(10).inDoubt).toEqual([true, true, true, true, false, false]);
    expect(reopened.size).toBe(6);
    reopened.close();
  });

  it('puts every event of a file written without the column in doubt', () => {
    const where = directory();
    const old = new Database(path.join(where, 'outbox.db'));
    old.exec('CREATE TABLE outbox (sequence INTEGER PRIMARY KEY AUTOINCREMENT, payload TEXT NOT NULL)');
    for (const event of requestEvents('old'))
      old.prepare('INSERT INTO outbox (payload) VALUES (?)').run(JSON.stringify(event));
    old.close();
    const outbox = new Outbox(where);
    outbox.add(requestEvents('new'));
    const { events, inDoubt } = outbox.peek(10);
    expect(events.map((event) => event.type)).toEqual([
      'request.completed',
      'usage.recorded',
      'request.completed',
      'usage.recorded',
    ]);
    expect(inDoubt).toEqual([true, true, false, false]);
    outbox.close();
  });
});
