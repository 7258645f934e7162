/**
 * A gateway in front of a fake Bedrock runtime (test/fake-upstream/bedrock-upstream.ts), with bedrock
 * channels from the config file: one signing with an AWS credential (SigV4, temporary credentials),
 * one with a Bedrock API key, and one with thinking_to_content.
 */
import OpenAI from 'openai';
import { type GatewayEvent, trafficFacts } from '../../contracts/events/index.ts';
import { type FakeBedrock, startFakeBedrock } from '../fake-upstream/bedrock-upstream.ts';
import { ConsoleClient } from '../support/console-client.ts';
import { type Harness, startHarness } from '../support/gateway-harness.ts';

export const AWS_CREDENTIAL = {
  accessKeyId: 'AKIAIOSFODNN7EXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
  sessionToken: 'IQoJb3JpZ2luX2VjEXAMPLEsessiontoken0123456789',
};
export const BEDROCK_API_KEY = 'ABSKQmVkcm9ja0FQSUtleS1leGFtcGxlMDEyMzQ1Njc4OQ==';
export const REGION = 'us-west-2';
export const CLAUDE_ID = 'anthropic.claude-3-5-sonnet-20240620-v1:0';

export interface BedrockGateway {
  harness: Harness;
  bedrock: FakeBedrock;
  key: string;
  openai: OpenAI;
  /** every event the gateway published since the last `published.length = 0` */
  published: GatewayEvent[];
  /** POST to the gateway with the client's key in both formats' headers, for raw frames */
  post(path: string, body: unknown): Promise<Response>;
}

export async function startBedrockGateway(
  user: string,
  environment: Record<string, string> = {},
): Promise<BedrockGateway> {
  const bedrock = await startFakeBedrock({ credential: AWS_CREDENTIAL, region: REGION, apiKey: BEDROCK_API_KEY });
  const channel = (name: string, models: string, lines: string[]) => [
    `  - name: ${name}`,
    '    type: bedrock',
    `    base_url: ${bedrock.url}`,
    `    region: ${REGION}`,
    `    models: [${models}]`,
    ...lines,
  ];
  const credential = [
    `    access_key_id: ${AWS_CREDENTIAL.accessKeyId}`,
    `    secret_access_key: ${AWS_CREDENTIAL.secretAccessKey}`,
    `    session_token: ${AWS_CREDENTIAL.sessionToken}`,
  ];
  const harness = await startHarness({
    environment,
    configLines: [
      ...channel('bedrock-sigv4', 'claude-bedrock', [
        ...credential,
        `    model_mapping: {claude-bedrock: "${CLAUDE_ID}"}`,
      ]),
      ...channel('bedrock-api-key', 'nova-bedrock', [
        `    api_key: "${BEDROCK_API_KEY}"`,
        '    model_mapping: {nova-bedrock: "us.amazon.nova-pro-v1:0"}',
      ]),
      ...channel('bedrock-think', 'claude-bedrock-think', [
        ...credential,
        '    thinking_to_content: true',
        `    model_mapping: {claude-bedrock-think: "${CLAUDE_ID}"}`,
      ]),
    ],
  });
  const published: GatewayEvent[] = [];
  const publisher = harness.runtime.publisher;
  const publish = publisher.publish.bind(publisher);
  publisher.publish = (...events) => {
    // what the projections apply: a request's usage as a usage.recorded of its own
    published.push(...trafficFacts(events));
    publish(...events);
  };
  const console = new ConsoleClient(harness.baseUrl);
  await console.register(user);
  const key = (await console.createToken('bedrock tests')).key;
  return {
    harness,
    bedrock,
    key,
    openai: new OpenAI({ baseURL: `${harness.baseUrl}/v1`, apiKey: key, maxRetries: 0 }),
    published,
    post: (path, body) =>
      fetch(`${harness.baseUrl}${path}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${key}`,
          'x-api-key': key,
          'anthropic-version': '2023-06-01',
        },
        body: JSON.stringify(body),
      }),
  };
}

export async function eventually<T>(find: () => T | undefined): Promise<T> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const found = find();
    if (found !== undefined) return found;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('not published in time');
}
