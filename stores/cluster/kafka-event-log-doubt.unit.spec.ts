/**
 * A send the event log gave up on (it timed out, kafkajs still has it) may reach the broker later; the
 * drain settles the events in doubt only once no such send can still land, so that the topic's ends the
 * settling reads include it. A send that failed by itself leaves nothing to wait for.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Kafka } from 'kafkajs';
import { afterEach, describe, expect, it } from 'vitest';
import { requestEvents } from '../../test/support/request-events.ts';
import { KafkaEventLog, SEND_LIFETIME_MS, topicNames } from './kafka-event-log.ts';
import { Outbox } from './outbox.ts';

/** A Kafka whose producers answer each send as `answer` says, in order. */
function fakeKafka(answers: Array<'hang' | 'refuse' | 'ok'>): Kafka {
  const producer = () => ({
    connect: async () => {},
    disconnect: async () => {},
    sendBatch: () => {
      const answer = answers.shift() ?? 'ok';
      if (answer === 'hang') return new Promise(() => {});
      return answer === 'refuse' ? Promise.reject(new Error('broker refused')) : Promise.resolve([]);
    },
  });
  return { producer } as unknown as Kafka;
}

describe('the drain of events in doubt', () => {
  const directories: string[] = [];
  afterEach(() => {
    for (const made of directories.splice(0)) rmSync(made, { recursive: true, force: true });
  });

  async function run(first: 'hang' | 'refuse') {
    const directory = mkdtempSync(path.join(tmpdir(), 'event-log-doubt-'));
    directories.push(directory);
    const steps: string[] = [];
    const waits: number[] = [];
    const log = new KafkaEventLog(
      fakeKafka([first]),
      topicNames('t-'),
      new Outbox(directory),
      {
        alreadyLogged: async () => {
          steps.push('settled');
          return new Set();
        },
      },
      () => {},
      {
        sendTimeoutMs: 20,
        sleep: async (ms) => {
          steps.push('waited');
          waits.push(ms);
        },
      },
    );
    const started = Date.now();
    await log.append(requestEvents('doubt'));
    await log.drain();
    return { steps, waits, started, outboxDepth: log.outboxDepth };
  }

  it('waits out a send given up on before settling, then sends the rest', async () => {
    const { steps, waits, started, outboxDepth } = await run('hang');
    expect(steps).toEqual(['waited', 'settled']);
    expect(waits[0]).toBeGreaterThan(SEND_LIFETIME_MS - (Date.now() - started) - 50);
    expect(waits[0]).toBeLessThanOrEqual(SEND_LIFETIME_MS);
    expect(outboxDepth).toBe(0);
  });

  it('settles at once after a send that failed by itself', async () => {
    const { steps, outboxDepth } = await run('refuse');
    expect(steps).toEqual(['settled']);
    expect(outboxDepth).toBe(0);
  });
});
