/**
 * @module test/faults/kafka-diagnostics
 * Where a fault case's missing events are, read from Kafka: still past the projector group's committed
 * offsets (a stuck projector), or not in the traffic topic at all (lost by the node that answered).
 */
import { connectKafka } from '../../stores/cluster/connections.ts';
import { topicNames } from '../../stores/cluster/kafka-event-log.ts';

/** Per topic and partition of `namespace`: the projector group's committed offset and the end, where they differ. */
export async function groupLag(kafkaBrokers: string, namespace: string): Promise<string> {
  const admin = connectKafka({ kafkaBrokers }, 'faults-lag').admin();
  await admin.connect();
  try {
    const lines: string[] = [];
    for (const topic of Object.values(topicNames(namespace))) {
      const ends = await admin.fetchTopicOffsets(topic);
      const [committed] = await admin.fetchOffsets({ groupId: `${namespace}projector`, topics: [topic] });
      for (const end of ends) {
        const at = committed?.partitions.find((partition) => partition.partition === end.partition)?.offset;
        if (at !== end.offset) lines.push(`${topic}[${end.partition}] committed ${at} end ${end.offset}`);
      }
    }
    return lines.length === 0 ? 'none: every event in Kafka is committed' : lines.join('; ');
  } finally {
    await admin.disconnect();
  }
}

/**
 * Events of the traffic topic past the projector group's committed offsets: the backlog that a store
 * the projector cannot write to leaves behind (a partition never committed counts from its start).
 */
export async function trafficBacklog(kafkaBrokers: string, namespace: string): Promise<number> {
  const admin = connectKafka({ kafkaBrokers }, 'faults-backlog').admin();
  await admin.connect();
  try {
    const topic = topicNames(namespace).traffic;
    const ends = await admin.fetchTopicOffsets(topic);
    const [committed] = await admin.fetchOffsets({ groupId: `${namespace}projector`, topics: [topic] });
    let behind = 0;
    for (const end of ends) {
      const at = Number(committed?.partitions.find((partition) => partition.partition === end.partition)?.offset ?? -1);
      behind += Number(end.offset) - Math.max(at, 0);
    }
    return behind;
  } finally {
    await admin.disconnect();
  }
}

/** How many of `ids` the traffic topic holds (by the client's request id in a message's bytes). */
export async function foundInKafka(kafkaBrokers: string, namespace: string, ids: string[]): Promise<string> {
  const kafka = connectKafka({ kafkaBrokers }, 'faults-scan');
  const topic = topicNames(namespace).traffic;
  const admin = kafka.admin();
  await admin.connect();
  const ends = await admin.fetchTopicOffsets(topic);
  await admin.disconnect();
  const remaining = new Map(ends.filter((end) => end.offset !== '0').map((end) => [end.partition, Number(end.offset)]));
  const found = new Set<string>();
  const consumer = kafka.consumer({ groupId: `faults-scan-${Date.now()}` });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  const scanned = new Promise<void>((resolve) => {
    void consumer.run({
      eachMessage: async ({ partition, message }) => {
        const text = message.value?.toString() ?? '';
        for (const id of ids) if (text.includes(`"${id}"`)) found.add(id);
        if (Number(message.offset) + 1 >= (remaining.get(partition) ?? 0)) remaining.delete(partition);
        if (remaining.size === 0) resolve();
      },
    });
  });
  await Promise.race([scanned, new Promise((resolve) => setTimeout(resolve, 30_000))]);
  await consumer.disconnect();
  return `${found.size} of ${ids.length} (${remaining.size} partitions not read to the end)`;
}
