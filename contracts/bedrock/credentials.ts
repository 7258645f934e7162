/**
 * @module contracts/bedrock/credentials
 * What a `bedrock` channel keeps in its encrypted key slot (the `apiKeyCiphertext` of
 * `channel.configured`, like every other kind's upstream key): either a Bedrock API key, sent as a
 * bearer token, or an AWS credential for SigV4 signing, kept as the JSON text of
 * `awsCredentialSchema`. Both are secrets, so both stay encrypted in events and read models; only the
 * relay decrypts them, in memory. A Bedrock API key never starts with `{`, so the two cannot be mistaken.
 */
import { z } from 'zod';

export const awsCredentialSchema = z.strictObject({
  accessKeyId: z.string().min(1),
  secretAccessKey: z.string().min(1),
  /** temporary credentials (STS) come with a session token */
  sessionToken: z.string().min(1).optional(),
});

export type AwsCredential = z.infer<typeof awsCredentialSchema>;

export type BedrockSecret = { kind: 'sigv4'; credential: AwsCredential } | { kind: 'api-key'; apiKey: string };

/** The text stored (encrypted) for an AWS credential. */
export function storedAwsCredential(credential: AwsCredential): string {
  return JSON.stringify(awsCredentialSchema.parse(credential));
}

/** A decrypted key slot of a bedrock channel read back. */
export function readBedrockSecret(secret: string): BedrockSecret {
  if (secret.startsWith('{')) {
    try {
      const parsed = awsCredentialSchema.safeParse(JSON.parse(secret));
      if (parsed.success) return { kind: 'sigv4', credential: parsed.data };
    } catch {
      // Not JSON after all: taken as an API key, which the upstream will judge.
    }
  }
  return { kind: 'api-key', apiKey: secret };
}

/** The parts of a stored secret that must never appear in what the gateway shows or logs. */
export function secretParts(secret: string): string[] {
  const read = readBedrockSecret(secret);
  if (read.kind === 'api-key') return [secret];
  const { accessKeyId, secretAccessKey, sessionToken } = read.credential;
  return [secret, secretAccessKey, accessKeyId, ...(sessionToken ? [sessionToken] : [])];
}

/** Bedrock's regional runtime endpoint, the default base URL of a bedrock channel. */
export function bedrockEndpoint(region: string): string {
  return `https://bedrock-runtime.${region}.amazonaws.com`;
}

/** An AWS region name (`us-east-1`, `eu-central-1`, `us-gov-west-1`): it becomes part of a host name. */
export const awsRegionSchema = z
  .string()
  .trim()
  .regex(/^[a-z]{2}(-[a-z]+)+-\d{1,2}$/, 'must be an AWS region such as us-east-1');
