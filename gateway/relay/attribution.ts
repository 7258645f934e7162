/**
 * @module gateway/relay/attribution
 * Who and what a request is for, read from what the client sent: the gateway's own headers
 * (`x-gateway-metadata`, `x-gateway-session-id`), the user fields each format already has, and the
 * session headers coding agents send themselves (docs/analytics.md lists them). The key's default
 * metadata comes first and the request's names override it. Only the gateway's own headers can make
 * a request fail: a format's own field is never refused here, it is cut to the bounds instead.
 */
import type { IncomingHttpHeaders } from 'node:http';
import {
  ATTRIBUTION_MAX_ID,
  isMetadataName,
  METADATA_MAX_KEYS,
  METADATA_MAX_NAME,
  METADATA_MAX_VALUE,
  type Metadata,
  type RequestAttribution,
} from '../../contracts/attribution.ts';
import type { Endpoint } from '../../contracts/events/index.ts';
import { GatewayError } from './errors.ts';

export const METADATA_HEADER = 'x-gateway-metadata';
export const SESSION_HEADER = 'x-gateway-session-id';

/**
 * Session headers clients send on their own, in the order they are believed: Claude Code's, then
 * Codex's (`session-id`, with `thread-id` beside it naming the same conversation).
 */
const agentSessionHeaders = ['x-claude-code-session-id', 'session-id', 'session_id'] as const;

const single = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

const beyondAscii = /[\u0080-\u00ff]/;

/** Node reads header bytes as Latin-1; a client sending UTF-8 JSON means UTF-8 (ASCII is both as it is). */
const utf8 = (value: string) => (beyondAscii.test(value) ? Buffer.from(value, 'latin1').toString('utf8') : value);

function refuse(message: string, param: string): never {
  throw new GatewayError('invalid_request', message, { param, code: 'invalid_gateway_header' });
}

/** The request's `x-gateway-metadata`, checked against the bounds; null when it sent none. */
export function metadataHeaderOf(headers: IncomingHttpHeaders): Metadata | null {
  const raw = single(headers[METADATA_HEADER]);
  if (raw === undefined || raw.trim() === '') return null;
  const example = 'a JSON object of string values, such as {"feature":"search","team":"growth"}';
  let parsed: unknown;
  try {
    parsed = JSON.parse(utf8(raw));
  } catch {
    refuse(`The ${METADATA_HEADER} header is not valid JSON; send ${example}.`, METADATA_HEADER);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    refuse(`The ${METADATA_HEADER} header must be ${example}.`, METADATA_HEADER);
  }
  const entries = Object.entries(parsed);
  if (entries.length > METADATA_MAX_KEYS) {
    refuse(
      `The ${METADATA_HEADER} header names ${entries.length} keys; at most ${METADATA_MAX_KEYS} are allowed.`,
      METADATA_HEADER,
    );
  }
  // Collected as entries: a name such as `__proto__` stays a plain key of the object built from them.
  const checked: Array<[string, string]> = [];
  for (const [name, value] of entries) {
    if (!isMetadataName(name)) {
      refuse(
        `The ${METADATA_HEADER} key "${name.slice(0, 80)}" must be 1 to ${METADATA_MAX_NAME} letters, digits or _ - . : characters.`,
        METADATA_HEADER,
      );
    }
    if (typeof value !== 'string') {
      refuse(`The ${METADATA_HEADER} value of "${name}" must be a string; send numbers as "42".`, METADATA_HEADER);
    }
    if (value.length > METADATA_MAX_VALUE) {
      refuse(
        `The ${METADATA_HEADER} value of "${name}" has ${value.length} characters; at most ${METADATA_MAX_VALUE} are allowed.`,
        METADATA_HEADER,
      );
    }
    checked.push([name, value]);
  }
  return Object.fromEntries(checked);
}

function sessionOf(headers: IncomingHttpHeaders): string | undefined {
  const own = single(headers[SESSION_HEADER])?.trim();
  if (own) {
    // Header values arrive as Latin-1 bytes: the bound is on the characters they decode to.
    const id = utf8(own);
    if (id.length > ATTRIBUTION_MAX_ID) {
      refuse(`The ${SESSION_HEADER} header may be at most ${ATTRIBUTION_MAX_ID} characters.`, SESSION_HEADER);
    }
    return id;
  }
  for (const name of agentSessionHeaders) {
    const sent = single(headers[name])?.trim();
    if (sent) return utf8(sent).slice(0, ATTRIBUTION_MAX_ID);
  }
  return undefined;
}

const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);

/** The end user a format's body names: OpenAI's `safety_identifier` or `user`, Anthropic's `metadata.user_id`. */
function endUserOf(endpoint: Endpoint, body: Record<string, unknown>): string | undefined {
  if (endpoint === 'messages' || endpoint === 'messages.count_tokens') {
    const metadata = body['metadata'];
    return typeof metadata === 'object' && metadata !== null
      ? text((metadata as Record<string, unknown>)['user_id'])
      : undefined;
  }
  if (endpoint.startsWith('gemini.')) return undefined;
  return text(body['safety_identifier']) ?? text(body['user']);
}

/** Gemini's `labels`, as far as they fit the bounds (the format's own field: never refused here). */
function labelsOf(endpoint: Endpoint, body: Record<string, unknown>): Metadata {
  const labels = body['labels'];
  if (!endpoint.startsWith('gemini.') || typeof labels !== 'object' || labels === null) return {};
  const fitting: Array<[string, string]> = [];
  for (const [name, value] of Object.entries(labels)) {
    if (typeof value !== 'string' || !isMetadataName(name)) continue;
    fitting.push([name, value.slice(0, METADATA_MAX_VALUE)]);
  }
  return Object.fromEntries(fitting);
}

/**
 * A Gemini body's own labels, as many as fit beside the key's defaults and the header's names: the
 * format allows more labels than the gateway records, and a format's own field is never refused.
 */
function labelsWithin(
  labels: Metadata | null,
  defaults: Metadata | null | undefined,
  requested: Metadata | null,
): Metadata | null {
  if (labels === null) return null;
  const taken = new Set([...Object.keys(defaults ?? {}), ...Object.keys(requested ?? {})]);
  let room = METADATA_MAX_KEYS - taken.size;
  const kept: Array<[string, string]> = [];
  for (const [name, value] of Object.entries(labels)) {
    if (requested && Object.hasOwn(requested, name)) continue;
    if (taken.has(name)) kept.push([name, value]);
    else if (room > 0) {
      kept.push([name, value]);
      room -= 1;
    }
  }
  return Object.fromEntries(kept);
}

/**
 * The attribution a request's event records, or null when there is none.
 * @param defaults the key's default metadata
 */
export function attributionOf(
  endpoint: Endpoint,
  headers: IncomingHttpHeaders,
  body: Record<string, unknown>,
  defaults: Metadata | null | undefined,
): RequestAttribution | null {
  const requested = metadataHeaderOf(headers);
  const labels = endpoint.startsWith('gemini.') ? labelsWithin(labelsOf(endpoint, body), defaults, requested) : null;
  // Most requests name no metadata: no object is built for them.
  const merged: Metadata | null =
    requested === null && labels === null ? (defaults ?? null) : { ...defaults, ...labels, ...requested };
  const names = merged === null ? [] : Object.keys(merged);
  if (names.length > METADATA_MAX_KEYS) {
    refuse(
      `With the key's default metadata the request names ${names.length} metadata keys; at most ${METADATA_MAX_KEYS} are allowed.`,
      METADATA_HEADER,
    );
  }
  const attribution: RequestAttribution = {};
  const endUser = endUserOf(endpoint, body);
  if (endUser !== undefined) attribution.endUser = endUser.slice(0, ATTRIBUTION_MAX_ID);
  const sessionId = sessionOf(headers);
  if (sessionId !== undefined) attribution.sessionId = sessionId;
  if (merged !== null && names.length > 0) attribution.metadata = merged;
  return attribution.endUser === undefined && attribution.sessionId === undefined && names.length === 0
    ? null
    : attribution;
}
