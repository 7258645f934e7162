/**
 * The store worker thread seen from the serving thread: lookups follow what the worker projects,
 * a bad call is refused without taking the worker down, a failed call keeps its SQLite error code,
 * and calls after close fail with a clear message.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { newEvent } from '../../gateway/events/new-event.ts';
import { MemoryLookups } from '../memory-lookups.ts';
import { StoreThread } from './store-thread.ts';
import { deserializeError, type StoreCall, serializeError } from './worker-protocol.ts';

let directory: string;
let lookups: MemoryLookups;
let thread: StoreThread;

beforeEach(async () => {
  directory = mkdtempSync(path.join(tmpdir(), 'store-thread-'));
  lookups = new MemoryLookups();
  thread = new StoreThread(directory, lookups);
  await thread.start();
});

afterEach(async () => {
  await thread.close();
  rmSync(directory, { recursive: true, force: true });
});

const registered = newEvent('user.registered', {
  userId: 'u1',
  email: 'a@example.com',
  name: 'a',
  passwordHash: 'x',
  role: 'user',
});

describe('StoreThread', () => {
  it('has the serving thread’s lookups current once a sync resolves', async () => {
    await thread.call({ method: 'append', batches: [Buffer.from(JSON.stringify([registered]))] });
    expect(await thread.call({ method: 'sync' })).toBeGreaterThanOrEqual(0);
    expect(lookups.userById('u1')?.email).toBe('a@example.com');
  });

  it('fills the lookups from the file when a new worker starts on it', async () => {
    await thread.call({ method: 'append', batches: [Buffer.from(JSON.stringify([registered]))] });
    await thread.close();
    const fresh = new MemoryLookups();
    thread = new StoreThread(directory, fresh);
    await thread.start();
    expect(fresh.userByEmail('a@example.com')?.userId).toBe('u1');
  });

  it('refuses a malformed append and goes on serving', async () => {
    await expect(thread.call({ method: 'append', batches: [Buffer.from('not json')] })).rejects.toThrow(/JSON/);
    await thread.call({ method: 'append', batches: [Buffer.from(JSON.stringify([registered]))] });
    await thread.call({ method: 'sync' });
    expect(lookups.userById('u1')).toBeDefined();
    expect(thread.alive).toBe(true);
  });

  it('rejects a call that cannot be posted, and goes on serving', async () => {
    const call = { method: 'append', batches: [() => 'not cloneable'] } as unknown as StoreCall;
    await expect(thread.call(call)).rejects.toThrow(/could not be cloned/);
    await thread.call({ method: 'append', batches: [Buffer.from(JSON.stringify([registered]))] });
    await thread.call({ method: 'sync' });
    expect(lookups.userById('u1')).toBeDefined();
  });

  it('says the worker is not running after close', async () => {
    await thread.close();
    await expect(thread.call({ method: 'lag' })).rejects.toThrow(/not running/);
  });
});

describe('errors across the thread boundary', () => {
  it('keep their message and their SQLite code', () => {
    const full = Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
    const crossed = deserializeError(serializeError(full));
    expect(crossed.message).toBe('database or disk is full');
    expect((crossed as Error & { code?: string }).code).toBe('SQLITE_FULL');
    expect('code' in deserializeError(serializeError(new Error('plain')))).toBe(false);
  });
});
