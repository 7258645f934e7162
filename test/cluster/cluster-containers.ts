/**
 * @module test/cluster/cluster-containers
 * Kafka, ClickHouse and Redis for the cluster suites through testcontainers, started once per test run
 * (vitest globalSetup of the `cluster` project) and handed to every file with `provide`.
 *
 * Images: KAFKA_IMAGE / CLICKHOUSE_IMAGE / REDIS_IMAGE when set; else the official image when it is here or
 * can be pulled; else the stand-in `scripts/images build` makes on machines without a registry. Every
 * container runs on the host network with ports picked free at start, so that addresses stay on loopback
 * and a container stopped and started again (the outage tests) answers on the same port.
 */
import { createServer } from 'node:net';
import { Kafka, logLevel } from 'kafkajs';
import {
  GenericContainer,
  getContainerRuntimeClient,
  ImageName,
  type StartedTestContainer,
  Wait,
} from 'testcontainers';

export type ServerName = 'kafka' | 'clickhouse' | 'redis';

export interface ClusterContainers {
  kafkaBrokers: string;
  clickhouseUrl: string;
  redisUrl: string;
  /** container id of each server, for the outage tests */
  containers: Record<ServerName, string>;
  /** port each server answers on, for the readiness wait after a restart */
  ports: Record<ServerName, number>;
  images: Record<ServerName, string>;
}

const OFFICIAL: Record<ServerName, string> = {
  kafka: 'apache/kafka:3.9.1',
  clickhouse: 'clickhouse/clickhouse-server:24.8',
  redis: 'redis:7',
};
const STAND_IN: Record<ServerName, string> = {
  kafka: 'llm-gateway/standin-kafka:3.9.2',
  clickhouse: 'llm-gateway/standin-clickhouse:18.16',
  redis: 'llm-gateway/standin-redis:8.0',
};
const OVERRIDE: Record<ServerName, string> = {
  kafka: 'KAFKA_IMAGE',
  clickhouse: 'CLICKHOUSE_IMAGE',
  redis: 'REDIS_IMAGE',
};

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

type RuntimeClient = Awaited<ReturnType<typeof getContainerRuntimeClient>>;

async function obtainable(client: RuntimeClient, image: string): Promise<boolean> {
  const name = ImageName.fromString(image);
  if (await client.image.exists(name)) return true;
  return client.image.pull(name).then(
    () => true,
    () => false,
  );
}

async function chooseImage(client: RuntimeClient, server: ServerName): Promise<string> {
  const override = process.env[OVERRIDE[server]];
  if (override) return override;
  if (await client.image.exists(ImageName.fromString(OFFICIAL[server]))) return OFFICIAL[server];
  if (await client.image.exists(ImageName.fromString(STAND_IN[server]))) return STAND_IN[server];
  return OFFICIAL[server];
}

/** A TCP connect from inside the container (bash is in the official images and the stand-ins). */
function portAnswers(port: number): string {
  return `bash -c 'exec 3<>/dev/tcp/127.0.0.1/${port}'`;
}

function kafka(image: string, port: number, controllerPort: number): GenericContainer {
  return new GenericContainer(image)
    .withNetworkMode('host')
    .withEnvironment({
      KAFKA_NODE_ID: '1',
      KAFKA_PROCESS_ROLES: 'broker,controller',
      KAFKA_LISTENERS: `PLAINTEXT://127.0.0.1:${port},CONTROLLER://127.0.0.1:${controllerPort}`,
      KAFKA_ADVERTISED_LISTENERS: `PLAINTEXT://127.0.0.1:${port}`,
      KAFKA_LISTENER_SECURITY_PROTOCOL_MAP: 'PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT',
      KAFKA_CONTROLLER_LISTENER_NAMES: 'CONTROLLER',
      KAFKA_INTER_BROKER_LISTENER_NAME: 'PLAINTEXT',
      KAFKA_CONTROLLER_QUORUM_VOTERS: `1@127.0.0.1:${controllerPort}`,
      KAFKA_LOG_DIRS: '/var/lib/kafka/data',
      KAFKA_NUM_PARTITIONS: '1',
      KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR: '1',
      KAFKA_OFFSETS_TOPIC_NUM_PARTITIONS: '1',
      KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR: '1',
      KAFKA_TRANSACTION_STATE_LOG_MIN_ISR: '1',
      KAFKA_TRANSACTION_STATE_LOG_NUM_PARTITIONS: '1',
      KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS: '0',
      KAFKA_HEAP_OPTS: '-Xmx512m',
    })
    .withWaitStrategy(Wait.forLogMessage(/Kafka Server started|\[KafkaRaftServer nodeId=1\] Kafka Server started/))
    .withStartupTimeout(120_000);
}

function clickhouse(image: string, port: number, tcpPort: number): GenericContainer {
  // The official image reads this file; the stand-in reads the same values from its environment.
  const ports = `<clickhouse><listen_host>127.0.0.1</listen_host><http_port>${port}</http_port><tcp_port>${tcpPort}</tcp_port><interserver_http_port remove="remove"/><mysql_port remove="remove"/><postgresql_port remove="remove"/></clickhouse>`;
  return new GenericContainer(image)
    .withNetworkMode('host')
    .withEnvironment({
      CLICKHOUSE_LISTEN_HOST: '127.0.0.1',
      CLICKHOUSE_HTTP_PORT: String(port),
      CLICKHOUSE_TCP_PORT: String(tcpPort),
      CLICKHOUSE_SKIP_USER_SETUP: '1',
      ANALYST_PASSWORD: process.env.ANALYST_PASSWORD ?? 'analyst',
    })
    .withCopyContentToContainer([{ content: ports, target: '/etc/clickhouse-server/config.d/test-ports.xml' }])
    .withCopyFilesToContainer([
      { source: 'deploy/clickhouse/analyst.xml', target: '/etc/clickhouse-server/users.d/analyst.xml' },
    ])
    .withWaitStrategy(Wait.forSuccessfulCommand(portAnswers(port)))
    .withStartupTimeout(120_000);
}

function redis(image: string, port: number): GenericContainer {
  return new GenericContainer(image)
    .withNetworkMode('host')
    .withCommand(['redis-server', '--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'no'])
    .withWaitStrategy(Wait.forSuccessfulCommand(portAnswers(port)))
    .withStartupTimeout(60_000);
}

/**
 * A brand-new broker creates its offsets topic at the first group request, and a consumer that asks
 * before it is ready may never join (see projector/heartbeat.ts). One consumer group joined here makes
 * the broker as ready as a long-running one before any suite starts a projector.
 */
async function warmUpGroups(brokers: string): Promise<void> {
  const kafka = new Kafka({ brokers: [brokers], clientId: 'cluster-warm-up', logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic: 'cluster-warm-up', numPartitions: 1 }] });
  await admin.disconnect();
  const consumer = kafka.consumer({ groupId: 'cluster-warm-up', retry: { retries: 30 } });
  try {
    const joined = new Promise<void>((resolve) => consumer.on(consumer.events.GROUP_JOIN, () => resolve()));
    await consumer.connect();
    await consumer.subscribe({ topics: ['cluster-warm-up'] });
    await consumer.run({ eachMessage: async () => undefined });
    await Promise.race([
      joined,
      new Promise((_, reject) => {
        setTimeout(() => reject(new Error('no consumer group joined in 120 s')), 120_000).unref();
      }),
    ]);
  } finally {
    await consumer.disconnect();
  }
}

export interface StartedClusterContainers {
  services: ClusterContainers;
  stop(): Promise<void>;
}

/** Starts the three servers, or throws with the reason (no engine, an image that cannot be had, a start that failed). */
export async function startClusterContainers(): Promise<StartedClusterContainers> {
  const client = await getContainerRuntimeClient();
  // Ryuk (the reaper testcontainers starts) is one more image to pull; without a registry, the
  // containers are removed by stop() below instead.
  if (!process.env.TESTCONTAINERS_RYUK_DISABLED && !(await obtainable(client, 'testcontainers/ryuk:0.14.0')))
    process.env.TESTCONTAINERS_RYUK_DISABLED = 'true';
  const images = {
    kafka: await chooseImage(client, 'kafka'),
    clickhouse: await chooseImage(client, 'clickhouse'),
    redis: await chooseImage(client, 'redis'),
  };
  const ports = { kafka: await freePort(), clickhouse: await freePort(), redis: await freePort() };
  const [controllerPort, clickhouseTcpPort] = [await freePort(), await freePort()];
  const started: StartedTestContainer[] = [];
  const stop = async () => {
    await Promise.all(started.map((container) => container.stop({ timeout: 10_000 }).catch(() => undefined)));
  };
  const keep = (container: StartedTestContainer) => {
    started.push(container);
    return container;
  };
  try {
    const [kafkaContainer, clickhouseContainer, redisContainer] = await Promise.all([
      kafka(images.kafka, ports.kafka, controllerPort).start().then(keep),
      clickhouse(images.clickhouse, ports.clickhouse, clickhouseTcpPort).start().then(keep),
      redis(images.redis, ports.redis).start().then(keep),
    ]);
    await warmUpGroups(`127.0.0.1:${ports.kafka}`);
    return {
      services: {
        kafkaBrokers: `127.0.0.1:${ports.kafka}`,
        clickhouseUrl: `http://127.0.0.1:${ports.clickhouse}`,
        redisUrl: `redis://127.0.0.1:${ports.redis}`,
        containers: {
          kafka: kafkaContainer.getId(),
          clickhouse: clickhouseContainer.getId(),
          redis: redisContainer.getId(),
        },
        ports,
        images,
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
