/**
 * Property-based fuzzing of the two relay endpoints with malformed and hostile bodies and headers:
 * wrong types, any JSON at all, huge strings, deep nesting, invalid UTF-8, wrong content types, bad
 * keys, and bodies over the configured limit. Every answer is a 4xx in the endpoint's own error shape
 * (never a 5xx), the gateway keeps serving, and the heap stays bounded. (129 tools:
 * relay-tool-count.int.spec.ts.)
 * Outcome counts go to test/artifacts/fuzz-report/relay.json.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../../gateway/relay/json-depth.ts';
import { ConsoleClient } from '../support/console-client.ts';
import { type Harness, startHarness } from '../support/gateway-harness.ts';
import { deeplyNested, heapMb, type RawResponse, rawRequest, Tally } from './fuzz-support.ts';
import { type Endpoint, endpoints, expectErrorShape, keyHeaders, validBody } from './relay-support.ts';

const RUNS = 150;
const BODY_LIMIT = 4096;

let harness: Harness;
let key: string;
const tally = new Tally();
let heapBefore = 0;

beforeAll(async () => {
  harness = await startHarness({ environment: { BODY_LIMIT_BYTES: String(BODY_LIMIT) } });
  const console = new ConsoleClient(harness.baseUrl);
  await console.register('fuzz-relay@example.com');
  key = (await console.createToken('fuzz')).key;
  heapBefore = heapMb();
});

afterAll(async () => {
  const heapAfter = heapMb();
  tally.write('relay', { heapMbBefore: heapBefore, heapMbAfter: heapAfter, gcExposed: 'gc' in globalThis });
  await harness?.stop();
});

function headersFor(endpoint: Endpoint, extra: Record<string, string> = {}): Record<string, string> {
  return keyHeaders(endpoint, key, extra);
}

async function send(
  property: string,
  endpoint: Endpoint,
  body: Buffer | string,
  headers: Record<string, string> = headersFor(endpoint),
): Promise<RawResponse> {
  const response = await rawRequest(harness.baseUrl, 'POST', endpoint, headers, body);
  tally.record(property, response.status);
  return response;
}

async function expectRefused(
  property: string,
  endpoint: Endpoint,
  body: Buffer | string,
  headers?: Record<string, string>,
) {
  const response = await send(property, endpoint, body, headers);
  expect(
    response.status,
    `${endpoint} ${String(body).slice(0, 200)} → ${response.text.slice(0, 300)}`,
  ).toBeGreaterThanOrEqual(400);
  expect(response.status).toBeLessThan(500);
  expectErrorShape(endpoint, response);
  return response;
}

const notAString = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.jsonValue(), { maxLength: 3 }),
  fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 3 }),
);
const notAnArray = fc.oneof(
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.string(),
  fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 3 }),
);
const notAPositiveInteger = fc.oneof(
  fc.string(),
  fc.boolean(),
  fc.constant(null),
  fc.integer({ max: 0 }),
  fc.double({ min: 0.01, max: 1e6, noInteger: true, noNaN: true }),
  fc.array(fc.integer(), { maxLength: 2 }),
);
const notABoolean = fc.oneof(
  fc.integer(),
  fc.string({ minLength: 1 }),
  fc.dictionary(fc.string(), fc.integer(), { maxKeys: 2 }),
  fc.array(fc.boolean(), { maxLength: 2 }),
);
/**
 * One field the gateway reads itself replaced by a value of the wrong type: the model, the
 * conversation and its roles, the completion allowance, `stream`, and on chat completions the spec's
 * own limits. What it does not read (a role's value, content, Anthropic's ranges) is the same-format
 * upstream's to judge (test/relay/forward-compat.int.spec.ts).
 */
function wrongTypeMutation(endpoint: Endpoint) {
  const read = [
    fc.record({ path: fc.constant('model'), value: notAString }),
    fc.record({ path: fc.constant('messages'), value: notAnArray }),
    fc.record({ path: fc.constant('max_tokens'), value: notAPositiveInteger }),
    fc.record({ path: fc.constant('stream'), value: notABoolean }),
    fc.record({ path: fc.constant('messages.0.role'), value: fc.oneof(fc.integer(), fc.constant(null)) }),
    fc.record({
      path: fc.constant('messages.0'),
      value: fc.oneof(fc.integer(), fc.boolean(), fc.constant(null), fc.string()),
    }),
  ];
  if (endpoint !== '/v1/chat/completions') return fc.oneof(...read);
  return fc.oneof(
    ...read,
    fc.record({
      path: fc.constant('temperature'),
      value: fc.oneof(
        fc.string(),
        fc.boolean(),
        fc.double({ min: 3, max: 1e9, noNaN: true }),
        fc.double({ min: -1e9, max: -0.01, noNaN: true }),
      ),
    }),
    fc.record({ path: fc.constant('tools'), value: notAnArray }),
  );
}

function mutate(body: Record<string, unknown>, path: string, value: unknown): Record<string, unknown> {
  const copy = structuredClone(body) as any;
  const parts = path.split('.');
  let target = copy;
  for (const part of parts.slice(0, -1)) target = target[part];
  target[parts.at(-1)!] = value;
  return copy;
}

describe.each(endpoints)('fuzzing %s', (endpoint) => {
  it('refuses a valid body with one field of the wrong type (4xx, own error shape)', async () => {
    await fc.assert(
      fc.asyncProperty(wrongTypeMutation(endpoint), async ({ path, value }) => {
        // `null` temperature / stream / tools are "not given" in both APIs: skip those few accepted forms.
        fc.pre(!(value === null && ['temperature', 'stream', 'tools', 'max_tokens'].includes(path)));
        if (endpoint === '/v1/chat/completions' && path === 'max_tokens') fc.pre(value !== null);
        await expectRefused('wrong types', endpoint, JSON.stringify(mutate(validBody(endpoint), path, value)));
      }),
      { numRuns: RUNS },
    );
  });

  it('refuses any JSON value that is not a request (4xx)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue({ maxDepth: 4 }), async (value) => {
        await expectRefused('any JSON', endpoint, JSON.stringify(value) ?? 'null');
      }),
      { numRuns: RUNS },
    );
  });

  it('refuses text that is not JSON at all (4xx)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ maxLength: 200 }).filter((text) => {
          try {
            JSON.parse(text);
            return false;
          } catch {
            return true;
          }
        }),
        async (text) => {
          await expectRefused('not JSON', endpoint, text);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('refuses huge strings in the model name and unknown fields of the wrong type', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: BODY_LIMIT - 200 }),
        fc.string({ minLength: 1, maxLength: 1 }),
        async (size, letter) => {
          const body = { ...validBody(endpoint), model: `x${letter.repeat(size)}` };
          await expectRefused('huge strings', endpoint, JSON.stringify(body));
        },
      ),
      { numRuns: 40 },
    );
  });

  it('refuses deeply nested content and messages without crashing', async () => {
    await fc.assert(
      fc.asyncProperty(
        // Past the depth limit: content nested less deep is the upstream's to judge.
        fc.integer({ min: MAX_JSON_DEPTH, max: 1_800 }),
        fc.constantFrom('array', 'object') as fc.Arbitrary<'array' | 'object'>,
        fc.constantFrom('content', 'messages', 'body'),
        async (depth, kind, where) => {
          const nested = deeplyNested(Math.min(depth, Math.floor((BODY_LIMIT - 200) / 5)), kind);
          const base = JSON.stringify(validBody(endpoint));
          const body =
            where === 'body'
              ? nested
              : where === 'messages'
                ? base.replace(/"messages":\[.*\]/, `"messages":${nested}`)
                : base.replace('"content":"hi"', `"content":${nested}`);
          await expectRefused('deep nesting', endpoint, body);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('refuses invalid UTF-8 anywhere in the body with a 400 in the shape of the endpoint', async () => {
    const invalidSequences = fc.constantFrom(
      [0xff],
      [0xc0, 0xaf],
      [0xe0, 0x80, 0xaf],
      [0xed, 0xa0, 0x80],
      [0xf8, 0x88, 0x80, 0x80, 0x80],
      [0x80],
      [0xc3],
      [0xfe, 0xfe, 0xff, 0xff],
    );
    await fc.assert(
      fc.asyncProperty(
        invalidSequences,
        fc.constantFrom('in a string', 'outside a string', 'whole body'),
        async (bytes, where) => {
          const text = JSON.stringify(validBody(endpoint));
          const raw = Buffer.from(bytes);
          let body: Buffer;
          if (where === 'whole body') body = raw;
          else if (where === 'outside a string')
            body = Buffer.concat([Buffer.from(text.slice(0, 1)), raw, Buffer.from(text.slice(1))]);
          else {
            const at = text.indexOf('"hi"') + 2;
            body = Buffer.concat([Buffer.from(text.slice(0, at)), raw, Buffer.from(text.slice(at))]);
          }
          const response = await send('invalid UTF-8', endpoint, body);
          expect(response.status, response.text).toBe(400);
          expectErrorShape(endpoint, response);
        },
      ),
      { numRuns: 48 },
    );
  });

  it('refuses wrong content types with 415', async () => {
    const contentType = fc.oneof(
      fc.constantFrom(
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'application/xml',
        'text/json',
        'application/jsonp',
        'image/png',
        '',
      ),
      fc.stringMatching(/^[a-z]{1,10}\/[a-z]{1,10}$/).filter((type) => !/^application\/([\w.+-]+\+)?json$/.test(type)),
    );
    await fc.assert(
      fc.asyncProperty(contentType, async (type) => {
        fc.pre(type !== '');
        const response = await expectRefused(
          'wrong content type',
          endpoint,
          JSON.stringify(validBody(endpoint)),
          headersFor(endpoint, { 'content-type': type }),
        );
        expect(response.status).toBe(415);
      }),
      { numRuns: 60 },
    );
  });

  it('refuses hostile credentials with 401', async () => {
    const printable = fc.stringMatching(/^[\x21-\x7e]{0,300}$/);
    await fc.assert(
      fc.asyncProperty(printable, fc.constantFrom('authorization', 'x-api-key', 'both'), async (value, header) => {
        fc.pre(!value.includes(key));
        const headers: Record<string, string> = {
          'content-type': 'application/json',
          'anthropic-version': '2023-06-01',
        };
        if (header !== 'x-api-key') headers.authorization = `Bearer ${value}`;
        if (header !== 'authorization') headers['x-api-key'] = value;
        const response = await expectRefused(
          'hostile credentials',
          endpoint,
          JSON.stringify(validBody(endpoint)),
          headers,
        );
        expect(response.status).toBe(401);
      }),
      { numRuns: RUNS },
    );
  });

  it('answers 413 to bodies over BODY_LIMIT_BYTES, declared or chunked', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: BODY_LIMIT + 1, max: BODY_LIMIT * 8 }),
        fc.boolean(),
        async (size, declared) => {
          const filler = 'a'.repeat(size);
          const body = JSON.stringify({ ...validBody(endpoint), metadata: { filler } });
          const headers = headersFor(
            endpoint,
            declared ? { 'content-length': String(Buffer.byteLength(body)) } : { 'transfer-encoding': 'chunked' },
          );
          const response = await expectRefused('over the body limit', endpoint, body, headers);
          expect(response.status).toBe(413);
        },
      ),
      { numRuns: 40 },
    );
  });
});

describe('after the fuzzing', () => {
  it('still serves valid requests on both endpoints, with a bounded heap', async () => {
    for (const endpoint of endpoints) {
      const response = await rawRequest(
        harness.baseUrl,
        'POST',
        endpoint,
        headersFor(endpoint),
        JSON.stringify(validBody(endpoint)),
      );
      expect(response.status, response.text).toBe(200);
    }
    const health = await rawRequest(harness.baseUrl, 'GET', '/healthz', {});
    expect(health.status).toBe(200);
    // Loose without --expose-gc: the whole run allocates far more than this, so a leak per request shows.
    expect(heapMb() - heapBefore).toBeLessThan(150);
  });
});
