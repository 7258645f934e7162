/**
 * @module gateway/providers/bedrock/sign-request
 * AWS Signature Version 4 for Bedrock requests, by AWS's own signer (@smithy/signature-v4 with
 * @smithy/hash-node's SHA-256): no hand-written crypto. Signing is asynchronous, so the request
 * carries a function the upstream client calls just before it sends (relay/upstream-client.ts): each
 * attempt is signed with the time it leaves. A signer is kept per credential and region, since it
 * caches the day's signing key.
 */
import { Hash } from '@smithy/hash-node';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredential } from '../../../contracts/bedrock/credentials.ts';

/** Bedrock's signing name (the runtime's host is bedrock-runtime, its service name is bedrock). */
export const BEDROCK_SIGNING_SERVICE = 'bedrock';

/** Channels are few; the bound only guards against a credential list that keeps changing. */
const MAX_SIGNERS = 256;
const signers = new Map<string, SignatureV4>();

function signerFor(credential: AwsCredential, region: string): SignatureV4 {
  const id = `${region}\n${credential.accessKeyId}\n${credential.secretAccessKey}\n${credential.sessionToken ?? ''}`;
  let signer = signers.get(id);
  if (!signer) {
    if (signers.size >= MAX_SIGNERS) signers.clear();
    signer = new SignatureV4({
      service: BEDROCK_SIGNING_SERVICE,
      region,
      credentials: credential,
      sha256: Hash.bind(null, 'sha256'),
      // Bedrock, unlike S3, takes no payload hash header: the body's hash is in the signature itself.
      applyChecksum: false,
    });
    signers.set(id, signer);
  }
  return signer;
}

export interface SignInput {
  url: string;
  headers: Record<string, string>;
  body: string;
  credential: AwsCredential;
  region: string;
  /** the signing time (tests); now by default */
  signingDate?: Date;
}

/**
 * The headers to send: the given ones with `x-amz-date`, `x-amz-security-token` (temporary
 * credentials) and `authorization`. `host` is signed but not returned, as the HTTP client sets it
 * from the URL to the same value.
 */
export async function signedHeaders(input: SignInput): Promise<Record<string, string>> {
  const url = new URL(input.url);
  const signed = await signerFor(input.credential, input.region).sign(
    {
      method: 'POST',
      protocol: url.protocol,
      hostname: url.hostname,
      ...(url.port && { port: Number(url.port) }),
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: { ...input.headers, host: url.host },
      body: input.body,
    },
    input.signingDate ? { signingDate: input.signingDate } : {},
  );
  const { host: _host, ...headers } = signed.headers;
  return headers;
}
