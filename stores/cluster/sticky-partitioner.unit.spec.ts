/**
 * The producer's partitioner keeps a keyless message on the partition it was first given through the
 * retries of its send, where kafkajs's default hands the retry's messages out afresh (and the broker,
 * seeing a sequence it already holds, drops them as duplicates): the send below is tried twice, as
 * kafkajs retries it, first while two partitions have no leader, then with every partition led.
 */
import { type Message, Partitioners, type PartitionMetadata } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { stickyPartitioner } from './sticky-partitioner.ts';

const topic = 'traffic-events';

function metadata(leaderless: number[] = []): PartitionMetadata[] {
  return Array.from({ length: 6 }, (_, partitionId) => ({
    partitionErrorCode: 0,
    partitionId,
    leader: leaderless.includes(partitionId) ? -1 : 1,
    replicas: [1],
    isr: [1],
    offlineReplicas: [],
  }));
}

/** Each message's partition in one try of a send, as kafkajs groups them (one call per message). */
function attempt(partitioner: ReturnType<typeof stickyPartitioner>, messages: Message[], leaderless: number[]) {
  const partitionMetadata = metadata(leaderless);
  return messages.map((message) => partitioner({ topic, partitionMetadata, message }));
}

const keyless = (count: number): Message[] =>
  Array.from({ length: count }, (_, index) => ({ key: null, value: `message ${index}` }));

describe('the sticky partitioner', () => {
  it('gives each keyless message of a retried send the partition it had on the first try', () => {
    const partitioner = stickyPartitioner();
    const messages = keyless(4);
    const first = attempt(partitioner, messages, [1, 4]);
    expect(first.some((partition) => partition === 1 || partition === 4)).toBe(false);
    expect(attempt(partitioner, messages, [])).toEqual(first);
    expect(attempt(partitioner, messages, [0, 2, 3, 5])).toEqual(first);
  });

  it('still spreads new keyless messages round-robin over the partitions that have a leader', () => {
    const partitioner = stickyPartitioner();
    const partitions = attempt(partitioner, keyless(8), [2]);
    expect(new Set(partitions).size).toBe(5);
    expect(partitions).not.toContain(2);
    const next = attempt(partitioner, keyless(6), []);
    expect(new Set(next).size).toBe(6);
  });

  it('puts a keyed message where kafkajs does (its entity keeps its partition), and honours an explicit one', () => {
    const partitioner = stickyPartitioner();
    const reference = Partitioners.DefaultPartitioner();
    const partitionMetadata = metadata();
    for (const key of ['token:t1', 'user:u1', 'channel:c9']) {
      const message = { key, value: 'x' };
      expect(partitioner({ topic, partitionMetadata, message })).toBe(
        reference({ topic, partitionMetadata, message: { key, value: 'x' } }),
      );
    }
    expect(partitioner({ topic, partitionMetadata, message: { key: null, value: 'x', partition: 5 } })).toBe(5);
  });

  it('where kafkajs alone would have moved the retried messages to other partitions', () => {
    const partitioner = Partitioners.DefaultPartitioner();
    const messages = keyless(4);
    const first = attempt(partitioner, messages, [1, 4]);
    expect(attempt(partitioner, messages, [])).not.toEqual(first);
  });
});
