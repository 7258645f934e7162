/**
 * @module stores/cluster/sticky-partitioner
 * The cluster node's producer partitioner: kafkajs's own (a keyed message by the hash of its key, a
 * keyless one round-robin over the partitions that have a leader), except that a keyless message keeps
 * the partition it was first given for as long as it lives, through every retry of its send.
 *
 * Why: kafkajs's idempotent producer retries a failed send with the same sequence numbers per partition,
 * but its round-robin hands the retry's messages out afresh. When the first try was written to some
 * partitions and refused by others (a broker stopping or starting moves its partitions' leadership one
 * by one), the retry sends other messages under a sequence the broker already holds: it takes them for
 * duplicates, acknowledges them, and drops them. Seen in the cluster fault suite (Kafka stopped and
 * started under traffic) as hundreds of requests answered 200 whose events never reached Kafka. With
 * each message held to its partition, a retry repeats exactly what each partition was sent: what was
 * written is recognised as the duplicate it is, and the rest is written.
 */
import { type ICustomPartitioner, type Message, Partitioners } from 'kafkajs';

export const stickyPartitioner: ICustomPartitioner = () => {
  const partitionOf = Partitioners.DefaultPartitioner();
  // Keyed by the message object, which kafkajs passes again on each retry of the same send.
  const given = new WeakMap<Message, number>();
  return (args) => {
    const { message } = args;
    // kafkajs's own choice is already stable for a message with a key or a partition of its own.
    if (message.key != null || message.partition != null) return partitionOf(args);
    const kept = given.get(message);
    if (kept !== undefined) return kept;
    const partition = partitionOf(args);
    given.set(message, partition);
    return partition;
  };
};
