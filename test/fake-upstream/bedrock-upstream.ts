/**
 * A fake Amazon Bedrock runtime for integration tests: `POST /model/{modelId}/converse` answers a
 * Converse fixture, `/converse-stream` the same case framed as AWS's binary event stream. It checks
 * authentication as Bedrock does: a Bedrock API key as a bearer token, or a SigV4 signature, which it
 * verifies by signing the request it received again with the credential it was given (AWS's signer);
 * a wrong one gets Bedrock's 403. Cases: a queued one wins; else a last user turn with a tool result
 * → `tool-result-reply`, tools listed → `tool-call`, thinking asked for → `thinking`, else `text`.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Hash } from '@smithy/hash-node';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredential } from '../../contracts/bedrock/credentials.ts';
import {
  bedrockError,
  bedrockReply,
  bedrockStreamEvents,
  encodeEntry,
  hasBedrockStream,
  type StreamEntry,
} from './bedrock-fixtures.ts';

export interface BedrockRequest {
  path: string;
  /** the model id as decoded from the path */
  modelId: string;
  headers: IncomingMessage['headers'];
  body: any;
}

export interface FakeBedrock {
  url: string;
  requests: BedrockRequest[];
  /** the next request's case, FIFO; `cutAfterEvents` ends a stream's socket after that many events */
  next(caseName: string, options?: { cutAfterEvents?: number; rawStream?: Buffer; contentType?: string }): void;
  reset(): void;
  close(): Promise<void>;
}

interface Queued {
  caseName: string;
  cutAfterEvents?: number;
  rawStream?: Buffer;
  contentType?: string;
}

const route = /^\/model\/([^/]+)\/(converse|converse-stream)$/;

function defaultCase(body: any): string {
  const last = Array.isArray(body?.messages) ? body.messages.at(-1) : undefined;
  if (last?.role === 'user' && last.content?.some((block: any) => block.toolResult)) return 'tool-result-reply';
  if (body?.toolConfig?.tools?.length) return 'tool-call';
  if (body?.additionalModelRequestFields?.thinking) return 'thinking';
  return 'text';
}

async function signatureMatches(request: IncomingMessage, raw: string, credential: AwsCredential, region: string) {
  const given = String(request.headers['authorization'] ?? '');
  const signed = /SignedHeaders=([^,]+)/.exec(given)?.[1]?.split(';') ?? [];
  const amzDate = String(request.headers['x-amz-date'] ?? '');
  const date = new Date(amzDate.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, '$1-$2-$3T$4:$5:$6Z'));
  const headers: Record<string, string> = {};
  for (const name of signed) headers[name] = String(request.headers[name] ?? '');
  const [path, query] = (request.url ?? '').split('?');
  const signer = new SignatureV4({
    service: 'bedrock',
    region,
    credentials: credential,
    sha256: Hash.bind(null, 'sha256'),
    applyChecksum: false,
  });
  const again = await signer.sign(
    {
      method: 'POST',
      protocol: 'http:',
      hostname: String(request.headers.host).split(':')[0]!,
      path: path!,
      query: Object.fromEntries(new URLSearchParams(query ?? '')),
      headers,
      body: raw,
    },
    { signingDate: date },
  );
  return again.headers['authorization'] === given;
}

export async function startFakeBedrock(
  options: { credential?: AwsCredential; region?: string; apiKey?: string; chunkDelayMs?: number } = {},
): Promise<FakeBedrock> {
  const requests: BedrockRequest[] = [];
  const queue: Queued[] = [];
  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const matched = route.exec(request.url?.split('?')[0] ?? '');
    if (request.method !== 'POST' || !matched) {
      response.writeHead(404, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ message: 'Not Found' }));
      return;
    }
    let body: any;
    try {
      body = JSON.parse(raw);
    } catch {
      body = raw;
    }
    const authorization = String(request.headers['authorization'] ?? '');
    const authentic = authorization.startsWith('Bearer ')
      ? options.apiKey === undefined || authorization === `Bearer ${options.apiKey}`
      : options.credential !== undefined &&
        (await signatureMatches(request, raw, options.credential, options.region ?? 'us-east-1'));
    if (!authentic) {
      response.writeHead(403, {
        'content-type': 'application/json',
        'x-amzn-errortype': 'UnrecognizedClientException:http://internal.amazon.com/coral/com.amazon.coral.service/',
      });
      response.end(JSON.stringify({ message: 'The security token included in the request is invalid.' }));
      return;
    }
    requests.push({ path: request.url!, modelId: decodeURIComponent(matched[1]!), headers: request.headers, body });
    const queued = queue.shift() ?? { caseName: defaultCase(body) };
    const streaming = matched[2] === 'converse-stream';
    if (queued.caseName.startsWith('error-') || !streaming || !hasBedrockStream(`${queued.caseName}-stream`)) {
      const fixture = bedrockReply(queued.caseName);
      const envelope = queued.caseName.startsWith('error-') ? bedrockError(queued.caseName) : null;
      response.writeHead(envelope?.status ?? 200, { 'content-type': 'application/json', ...envelope?.headers });
      response.end(JSON.stringify(envelope ? envelope.body : fixture));
      return;
    }
    response.writeHead(200, {
      'content-type': queued.contentType ?? 'application/vnd.amazon.eventstream',
      'x-amzn-requestid': 'a1b2c3d4-5678-90ab-cdef-EXAMPLE11111',
    });
    if (queued.rawStream) {
      response.end(queued.rawStream);
      return;
    }
    const events: StreamEntry[] = bedrockStreamEvents(`${queued.caseName}-stream`);
    for (const [index, entry] of events.entries()) {
      if (queued.cutAfterEvents !== undefined && index >= queued.cutAfterEvents) {
        response.destroy();
        return;
      }
      response.write(encodeEntry(entry));
      if (options.chunkDelayMs) await new Promise((resolve) => setTimeout(resolve, options.chunkDelayMs));
    }
    response.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    next(caseName, more = {}) {
      queue.push({ caseName, ...more });
    },
    reset() {
      requests.length = 0;
      queue.length = 0;
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
