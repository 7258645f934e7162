/**
 * What the relay reads as a request's attribution, header by header and format by format: UTF-8 in
 * the metadata header, names such as `__proto__` refused (zod's record drops them, so the stores would
 * disagree), Gemini's labels as metadata (those that fit, never refused), the gateway's session header
 * before the agents' own, bounded in characters.
 */
import { describe, expect, it } from 'vitest';
import { attributionOf } from './attribution.ts';
import { GatewayError } from './errors.ts';

/** A header as node hands it over: the bytes read as Latin-1. */
const latin1 = (text: string) => Buffer.from(text, 'utf8').toString('latin1');

describe('attributionOf', () => {
  it('is null when neither the request nor its key names anything', () => {
    expect(attributionOf('chat.completions', {}, { model: 'm' }, null)).toBeNull();
  });

  it('reads UTF-8 metadata, and refuses a reserved name such as __proto__', () => {
    const header = latin1('{"team":"增长"}');
    const { metadata } = attributionOf('chat.completions', { 'x-gateway-metadata': header }, {}, null)!;
    expect(metadata).toEqual({ team: '增长' });
    for (const name of ['__proto__', 'constructor', 'prototype']) {
      const refuse = () => attributionOf('chat.completions', { 'x-gateway-metadata': `{"${name}":"p"}` }, {}, null);
      expect(refuse).toThrow(GatewayError);
    }
  });

  it('refuses a name that is no metadata name, saying the rule', () => {
    const refuse = () => attributionOf('messages', { 'x-gateway-metadata': latin1('{"团队":"x"}') }, {}, null);
    expect(refuse).toThrow(GatewayError);
    expect(refuse).toThrow(/1 to 64 letters, digits or _ - . :/);
  });

  it('takes Gemini labels that fit as metadata, under the key defaults and over none of the header', () => {
    const body = { labels: { team: 'infra', 'Bad Name': 'x', cost_center: 7, feature: 'l'.repeat(300) } };
    const headers = { 'x-gateway-metadata': '{"feature":"header"}' };
    const attribution = attributionOf('gemini.generateContent', headers, body, { env: 'prod', team: 'default' });
    expect(attribution).toEqual({ metadata: { env: 'prod', team: 'infra', feature: 'header' } });
    const labelsOnly = attributionOf('gemini.generateContent', {}, body, null)!;
    expect(labelsOnly.metadata!['feature']).toHaveLength(256);
  });

  it('keeps as many Gemini labels as fit beside the defaults and the header, and refuses none', () => {
    const labels = Object.fromEntries(Array.from({ length: 40 }, (_, index) => [`label${index}`, 'v']));
    const headers = { 'x-gateway-metadata': '{"feature":"header","label0":"mine"}' };
    const attribution = attributionOf('gemini.generateContent', headers, { labels }, { env: 'prod' })!;
    expect(Object.keys(attribution.metadata!)).toHaveLength(16);
    expect(attribution.metadata).toMatchObject({ env: 'prod', feature: 'header', label0: 'mine', label1: 'v' });
  });

  it('bounds the session header in characters, not bytes', () => {
    const cjk = latin1('会'.repeat(200));
    expect(attributionOf('messages', { 'x-gateway-session-id': cjk }, {}, null)?.sessionId).toBe('会'.repeat(200));
    const tooLong = latin1('会'.repeat(257));
    expect(() => attributionOf('messages', { 'x-gateway-session-id': tooLong }, {}, null)).toThrow(GatewayError);
  });

  it('prefers the gateway’s session header, then Claude Code’s, then Codex’s', () => {
    const all = { 'x-gateway-session-id': 'mine', 'x-claude-code-session-id': 'claude', 'session-id': 'codex' };
    expect(attributionOf('messages', all, {}, null)?.sessionId).toBe('mine');
    const { 'x-gateway-session-id': _mine, ...agents } = all;
    expect(attributionOf('messages', agents, {}, null)?.sessionId).toBe('claude');
    expect(attributionOf('responses', { 'session-id': 'codex' }, {}, null)?.sessionId).toBe('codex');
  });

  it('reads each format’s user field, cut to 256 characters, and no other format’s', () => {
    expect(attributionOf('responses', {}, { user: 'u'.repeat(300) }, null)?.endUser).toHaveLength(256);
    expect(attributionOf('messages', {}, { user: 'openai-field' }, null)).toBeNull();
    expect(attributionOf('messages.count_tokens', {}, { metadata: { user_id: 'claude-user' } }, null)).toEqual({
      endUser: 'claude-user',
    });
    expect(attributionOf('embeddings', {}, { user: 7, safety_identifier: 'safe' }, null)?.endUser).toBe('safe');
  });
});
