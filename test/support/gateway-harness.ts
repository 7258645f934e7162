/**
 * @module test/support/gateway-harness
 * Starts a real gateway runtime (embedded store in a temp DATA_DIR, port 0) in front of a fake
 * upstream, with one OpenAI and one Anthropic channel, and helpers to sign up and create keys through
 * the console API as a browser or script would.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ChannelType } from '../../contracts/channel-type.ts';
import { readSettings } from '../../gateway/config/settings.ts';
import { createRuntime, type GatewayRuntime } from '../../gateway/runtime.ts';
import { type FakeUpstream, startFakeUpstream } from '../fake-upstream/server.ts';

export const UPSTREAM_KEY_OPENAI = 'upstream-openai-key-0123456789abcdef';
export const UPSTREAM_KEY_ANTHROPIC = 'upstream-anthropic-key-0123456789abcdef';
export const UPSTREAM_KEY_AZURE = 'upstream-azure-key-0123456789abcdef';

export interface Harness {
  baseUrl: string;
  upstream: FakeUpstream;
  runtime: GatewayRuntime;
  dataDirectory: string;
  /** Restarts the gateway process on the same DATA_DIR (a restart, not a new install). */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/** A channel added to the default two, pointed at the fake upstream in its own format. */
export interface ExtraChannel {
  name: string;
  type: ChannelType;
  models: string[];
  /** an azure channel's api_version */
  apiVersion?: string;
  /** client model name → upstream model name (an azure channel's deployment) */
  modelMapping?: Record<string, string>;
  thinkingToContent?: boolean;
  /** an openai channel that serves `/v1/responses` itself */
  responsesApi?: boolean;
  /** another upstream (default: the harness's fake upstream in the channel's format) */
  baseUrl?: string;
  /** several upstream keys, used in turn (default: the format's one key) */
  apiKeys?: string[];
  priority?: number;
  weight?: number;
  firstByteTimeoutMs?: number;
  connectTimeoutMs?: number;
  idleTimeoutMs?: number;
}

export interface HarnessOptions {
  environment?: Record<string, string>;
  dataDirectory?: string;
  extraChannels?: ExtraChannel[];
  /** more top-level YAML of the config file (e.g. `prices:` and its entries) */
  configLines?: string[];
  /** the port to listen on (default: any free one); for settings that name it, like PUBLIC_URL */
  port?: number;
}

function extraChannelLines(channels: ExtraChannel[], upstreamUrl: string): string[] {
  return channels.flatMap((channel) => [
    `  - name: ${channel.name}`,
    `    type: ${channel.type}`,
    `    base_url: ${channel.baseUrl ?? (channel.type === 'openai' ? `${upstreamUrl}/v1` : upstreamUrl)}`,
    channel.apiKeys
      ? `    api_keys: [${channel.apiKeys.join(', ')}]`
      : `    api_key: ${channel.type === 'openai' ? UPSTREAM_KEY_OPENAI : channel.type === 'azure' ? UPSTREAM_KEY_AZURE : UPSTREAM_KEY_ANTHROPIC}`,
    `    models: [${channel.models.join(', ')}]`,
    ...(channel.modelMapping ? [`    model_mapping: ${JSON.stringify(channel.modelMapping)}`] : []),
    `    thinking_to_content: ${channel.thinkingToContent === true}`,
    ...(channel.responsesApi ? ['    responses_api: true'] : []),
    ...(channel.apiVersion ? [`    api_version: ${channel.apiVersion}`] : []),
    ...(channel.priority !== undefined ? [`    priority: ${channel.priority}`] : []),
    ...(channel.weight !== undefined ? [`    weight: ${channel.weight}`] : []),
    ...(channel.firstByteTimeoutMs !== undefined ? [`    first_byte_timeout_ms: ${channel.firstByteTimeoutMs}`] : []),
    ...(channel.connectTimeoutMs !== undefined ? [`    connect_timeout_ms: ${channel.connectTimeoutMs}`] : []),
    ...(channel.idleTimeoutMs !== undefined ? [`    idle_timeout_ms: ${channel.idleTimeoutMs}`] : []),
  ]);
}

function configFile(
  directory: string,
  upstreamUrl: string,
  extraChannels: ExtraChannel[] = [],
  configLines: string[] = [],
): string {
  const file = path.join(directory, 'gateway.yaml');
  writeFileSync(
    file,
    [
      'channels:',
      '  - name: fake-openai',
      '    type: openai',
      `    base_url: ${upstreamUrl}/v1`,
      `    api_key: ${UPSTREAM_KEY_OPENAI}`,
      '    models: [gpt-4o-mini, gpt-mapped]',
      '    model_mapping: {gpt-mapped: gpt-4o-mini-upstream-name}',
      '  - name: fake-anthropic',
      '    type: anthropic',
      `    base_url: ${upstreamUrl}`,
      `    api_key: ${UPSTREAM_KEY_ANTHROPIC}`,
      '    models: [claude-sonnet-4-5]',
      ...extraChannelLines(extraChannels, upstreamUrl),
      ...configLines,
      '',
    ].join('\n'),
  );
  return file;
}

/** Every setting reaches the runtime through `readSettings`, as in a real start. */
async function createHarnessRuntime(environment: Record<string, string>): Promise<GatewayRuntime> {
  return createRuntime(readSettings(environment));
}

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const upstream = await startFakeUpstream();
  const dataDirectory = options.dataDirectory ?? mkdtempSync(path.join(tmpdir(), 'gateway-test-'));
  const environment: Record<string, string> = {
    DATA_DIR: dataDirectory,
    GATEWAY_CONFIG: configFile(dataDirectory, upstream.url, options.extraChannels, options.configLines),
    PORT: '0',
    HOST: '127.0.0.1',
    // The fake upstream is on loopback, and every test client signs in from 127.0.0.1: the SSRF guard
    // and the sign-in rate limit are tested on their own (test/security), with these overridden.
    ALLOW_PRIVATE_UPSTREAMS: 'true',
    AUTH_RATE_LIMIT_ATTEMPTS: '1000',
    // One log line per request would drown the test output; suites that read the logs set LOG_LEVEL.
    LOG_LEVEL: 'warn',
    ...options.environment,
  };
  let runtime = await createHarnessRuntime(environment);
  let baseUrl = await listen(runtime, options.port);
  const harness: Harness = {
    get baseUrl() {
      return baseUrl;
    },
    upstream,
    get runtime() {
      return runtime;
    },
    dataDirectory,
    async restart() {
      await runtime.close();
      runtime = await createHarnessRuntime(environment);
      baseUrl = await listen(runtime, options.port);
    },
    async stop() {
      await runtime.close();
      await upstream.close();
      if (!options.dataDirectory) rmSync(dataDirectory, { recursive: true, force: true });
    },
  };
  return harness;
}

async function listen(runtime: GatewayRuntime, wanted = 0): Promise<string> {
  await new Promise<void>((resolve) => runtime.server.listen(wanted, '127.0.0.1', resolve));
  const { port } = runtime.server.address() as AddressInfo;
  return `http://127.0.0.1:${port}`;
}
