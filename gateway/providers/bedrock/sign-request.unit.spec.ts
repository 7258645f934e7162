/**
 * SigV4 signing of Bedrock requests, checked against the signature version 4 algorithm as AWS
 * documents it, recomputed here step by step (canonical request, string to sign, signing key): the
 * Authorization header's shape, the headers it signs, and that its signature verifies. The test's own
 * key derivation is first checked against AWS's published example, so a wrong verifier cannot pass.
 */
import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signedHeaders } from './sign-request.ts';

const credential = {
  accessKeyId: 'AKIDEXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
};
const signingDate = new Date('2015-08-30T12:36:00Z');
const url =
  'https://bedrock-runtime.us-east-1.amazonaws.com/model/anthropic.claude-3-5-sonnet-20240620-v1%3A0/converse';
const body = '{"messages":[{"role":"user","content":[{"text":"Hello"}]}]}';
const headers = { 'content-type': 'application/json', accept: 'application/json' };

const hmac = (key: string | Buffer, text: string) => createHmac('sha256', key).update(text, 'utf8').digest();
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

function signingKey(secret: string, day: string, region: string, service: string): Buffer {
  return hmac(hmac(hmac(hmac(`AWS4${secret}`, day), region), service), 'aws4_request');
}

/** Every path segment URI-encoded once more (all services but S3), as SigV4 specifies. */
function canonicalPath(path: string): string {
  return path
    .split('/')
    .map((segment) =>
      encodeURIComponent(segment).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`),
    )
    .join('/');
}

function expectedSignature(
  sent: Record<string, string>,
  signed: string[],
  region = 'us-east-1',
  path = (pathname: string) => canonicalPath(pathname),
): string {
  const target = new URL(url);
  const all: Record<string, string> = { ...sent, host: target.host };
  const canonicalRequest = [
    'POST',
    path(target.pathname),
    '',
    ...signed.map((name) => `${name}:${all[name]!.trim()}`),
    '',
    signed.join(';'),
    sha256(body),
  ].join('\n');
  const scope = `20150830/${region}/bedrock/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', '20150830T123600Z', scope, sha256(canonicalRequest)].join('\n');
  return createHmac('sha256', signingKey(credential.secretAccessKey, '20150830', region, 'bedrock'))
    .update(stringToSign)
    .digest('hex');
}

describe('signedHeaders', () => {
  it("the test's key derivation matches AWS's published example", () => {
    // https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv-create-signed-request.html (derive a signing key)
    expect(signingKey(credential.secretAccessKey, '20120215', 'us-east-1', 'iam').toString('hex')).toBe(
      'f4780e2d9f65fa895f9c67b32ce1baf0b0d8a43505a000a1a9e090d414db404d',
    );
  });

  it('signs with the bedrock service scope: header shape, signed headers, and a signature that verifies', async () => {
    const sent = await signedHeaders({ url, headers, body, credential, region: 'us-east-1', signingDate });
    expect(sent['x-amz-date']).toBe('20150830T123600Z');
    expect(sent['host']).toBeUndefined();
    expect(sent['x-amz-content-sha256']).toBeUndefined();
    const match =
      /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/20150830\/us-east-1\/bedrock\/aws4_request, SignedHeaders=([a-z0-9;-]+), Signature=([0-9a-f]{64})$/.exec(
        sent['authorization']!,
      );
    expect(match).not.toBeNull();
    const signed = match![1]!.split(';');
    expect(signed).toEqual(['accept', 'content-type', 'host', 'x-amz-date']);
    expect(match![2]).toBe(expectedSignature(sent, signed));
    // The model id's `:` is %3A on the wire and %253A in the canonical request: a signature over the
    // singly encoded path would not verify.
    expect(match![2]).not.toBe(expectedSignature(sent, signed, 'us-east-1', (pathname) => pathname));
  });

  it('signs the session token of temporary credentials', async () => {
    const sent = await signedHeaders({
      url,
      headers,
      body,
      credential: { ...credential, sessionToken: 'session-token-EXAMPLE' },
      region: 'eu-central-1',
      signingDate,
    });
    expect(sent['x-amz-security-token']).toBe('session-token-EXAMPLE');
    const [, list, signature] = /SignedHeaders=([^,]+), Signature=(\w+)$/.exec(sent['authorization']!)!;
    expect(list).toBe('accept;content-type;host;x-amz-date;x-amz-security-token');
    expect(signature).toBe(expectedSignature(sent, list!.split(';'), 'eu-central-1'));
  });

  it('signs a different body differently', async () => {
    const first = await signedHeaders({ url, headers, body, credential, region: 'us-east-1', signingDate });
    const second = await signedHeaders({
      url,
      headers,
      body: `${body} `,
      credential,
      region: 'us-east-1',
      signingDate,
    });
    expect(first['authorization']).not.toBe(second['authorization']);
  });
});
