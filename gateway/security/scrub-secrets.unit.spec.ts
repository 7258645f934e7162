import { describe, expect, it } from 'vitest';
import { storedAwsCredential } from '../../contracts/bedrock/credentials.ts';
import { channelSecrets, REDACTED, scrubJsonText, scrubSecrets } from './scrub-secrets.ts';

const KEY = 'upstream-key-Qm7vX2pL9sT4wZ8r';

describe('scrubSecrets: the channel’s own keys', () => {
  it('takes out the whole key, alone or after a scheme', () => {
    expect(scrubSecrets(`bad key ${KEY}.`, [KEY])).toBe(`bad key ${REDACTED}.`);
    expect(scrubSecrets(`Authorization: Bearer ${KEY}`, [KEY])).toBe(`Authorization: Bearer ${REDACTED}`);
  });

  it('takes it out in any casing and every time it appears', () => {
    const text = `${KEY.toUpperCase()} and ${KEY.toLowerCase()} and ${KEY}`;
    expect(scrubSecrets(text, [KEY])).toBe(`${REDACTED} and ${REDACTED} and ${REDACTED}`);
  });

  it('takes out a fragment of 12 characters or more (an echo cut short), not shorter runs', () => {
    expect(scrubSecrets(`got "${KEY.slice(0, 20)}…"`, [KEY])).toBe(`got "${REDACTED}…"`);
    expect(scrubSecrets(`tail ${KEY.slice(-14)}`, [KEY])).toBe(`tail ${REDACTED}`);
    expect(scrubSecrets('the upstream said no', [KEY])).toBe('the upstream said no');
  });

  it('takes out every key of the channel, and leaves a text without them unchanged', () => {
    const keys = ['first-pool-key-0123456789', 'second-pool-key-9876543210'];
    expect(scrubSecrets(`${keys[1]} / ${keys[0]}`, keys)).toBe(`${REDACTED} / ${REDACTED}`);
    const clean = 'The model `gpt-4o` does not exist (request id req_0123456789abcdef).';
    expect(scrubSecrets(clean, keys)).toBe(clean);
  });

  it('ignores keys too short to guard anything, and handles text whose lower case changes length', () => {
    expect(scrubSecrets('a b c', ['a'])).toBe('a b c');
    expect(scrubSecrets(`İ ${KEY}`, [KEY])).toBe(`İ ${REDACTED}`);
  });
});

describe('scrubSecrets: anything shaped like a credential', () => {
  it.each([
    ['sk-proj-Abc123def456ghi789', REDACTED],
    ['sk-ant-api03-abcdefghijklmnop-qrstuv', REDACTED],
    ['Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig', `Bearer ${REDACTED}`],
    ['authorization: Basic dXNlcjpwYXNzd29yZA==', `authorization: Basic ${REDACTED}`],
    ['x-api-key: 9f8e7d6c5b4a39281706', `x-api-key: ${REDACTED}`],
    ['{"x-api-key":"9f8e7d6c5b4a39281706"}', `{"x-api-key":"${REDACTED}"}`],
    ['api_key=abcdefgh12345678', `api_key=${REDACTED}`],
    ['AKIAIOSFODNN7EXAMPLE', REDACTED],
    ['aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', `aws_secret_access_key = ${REDACTED}`],
    ['AIzaSyA1234567890abcdefghijklmnopqrstu', REDACTED],
  ])('%s', (text, expected) => {
    expect(scrubSecrets(text, [])).toBe(expected);
  });

  it('leaves ordinary error text alone', () => {
    for (const text of [
      'Rate limit reached for gpt-4o-mini in organization org-abc on tokens per min.',
      'This model’s maximum context length is 128000 tokens.',
      'The task-management sk-learn model is overloaded',
      'invalid x-api-key header',
    ]) {
      expect(scrubSecrets(text, [])).toBe(text);
    }
  });
});

describe('channelSecrets', () => {
  it('lists the one key, or every key of a pool', () => {
    expect(channelSecrets({ apiKey: 'k1' })).toEqual(['k1']);
    expect(channelSecrets({ apiKey: 'k2', apiKeys: ['k1', 'k2'] })).toEqual(['k2', 'k1', 'k2']);
    expect(channelSecrets(undefined)).toEqual([]);
  });
});

describe('scrubJsonText', () => {
  it('returns JSON without secrets byte for byte', () => {
    const text = '{ "error" : {"message":"overloaded", "type":"server_error"} }';
    expect(scrubJsonText(text, [KEY])).toBe(text);
  });

  it('scrubs every string, keys included, and writes valid JSON again', () => {
    const text = JSON.stringify({
      error: { message: `echo Bearer ${KEY}`, detail: [{ [KEY]: 'sk-ant-abcdefghijkl' }] },
    });
    const scrubbed = scrubJsonText(text, [KEY]);
    expect(scrubbed).not.toContain(KEY);
    expect(JSON.parse(scrubbed)).toEqual({
      error: { message: `echo Bearer ${REDACTED}`, detail: [{ [REDACTED]: REDACTED }] },
    });
  });

  it('finds a key written with \\u escapes', () => {
    const escaped = [...KEY].map((character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
    const scrubbed = scrubJsonText(`{"error":{"message":"key ${escaped}"}}`, [KEY]);
    expect(JSON.parse(scrubbed).error.message).toBe(`key ${REDACTED}`);
  });

  it('keeps a __proto__ key an ordinary key', () => {
    const scrubbed = scrubJsonText(`{"__proto__":{"polluted":"${KEY}"}}`, [KEY]);
    expect(JSON.parse(scrubbed)).toEqual(JSON.parse(`{"__proto__":{"polluted":"${REDACTED}"}}`));
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('scrubs text that is not JSON, or too deep to walk, as text', () => {
    expect(scrubJsonText(`not json ${KEY}`, [KEY])).toBe(`not json ${REDACTED}`);
    const deep = `${'['.repeat(50_000)}"${KEY}"${']'.repeat(50_000)}`;
    expect(scrubJsonText(deep, [KEY])).not.toContain(KEY);
    const shallowEnough = `${'['.repeat(40)}"${KEY}"${']'.repeat(40)}`;
    expect(scrubJsonText(shallowEnough, [KEY])).not.toContain(KEY);
  });
});

describe('channelSecrets of a bedrock channel', () => {
  // The slot holds the credential as JSON; its parts are runs of that text, which the fragment pass finds.
  it('takes each part of a stored AWS credential out of an echo', () => {
    const slot = storedAwsCredential({
      accessKeyId: 'AKIAIOSFODNN7EXAMPLE',
      secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
      sessionToken: 'IQoJb3JpZ2luX2VjEXAMPLEsessiontoken0123456789',
    });
    const echoed =
      'signature mismatch: secret wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY, token IQoJb3JpZ2luX2VjEXAMPLEsessiontoken0123456789';
    expect(scrubSecrets(echoed, channelSecrets({ apiKey: slot }))).toBe(
      'signature mismatch: secret [redacted], token [redacted]',
    );
  });
});
