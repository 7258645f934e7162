import { errors } from 'undici';
import { describe, expect, it } from 'vitest';
import { GatewayError, UpstreamCallError } from './errors.ts';
import { internalError, isUpstreamFailure } from './failure-origin.ts';

function systemError(code: string): Error {
  return Object.assign(new Error(`connect ${code} 10.0.0.1:443`), { code });
}

describe('isUpstreamFailure', () => {
  it('blames the upstream for its answers and for the transport to it', () => {
    expect(isUpstreamFailure(new UpstreamCallError('upstream', 'HTTP 500', 500))).toBe(true);
    expect(isUpstreamFailure(new errors.SocketError('other side closed'))).toBe(true);
    expect(isUpstreamFailure(new errors.HeadersTimeoutError())).toBe(true);
    expect(isUpstreamFailure(new errors.RequestAbortedError())).toBe(true);
    for (const code of ['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'ERR_TLS_CERT_ALTNAME_INVALID']) {
      expect(isUpstreamFailure(systemError(code)), code).toBe(true);
    }
  });

  it('never blames it for the gateway’s own exceptions', () => {
    expect(isUpstreamFailure(new RangeError('Maximum call stack size exceeded'))).toBe(false);
    expect(isUpstreamFailure(new TypeError("Cannot read properties of undefined (reading 'x')"))).toBe(false);
    expect(isUpstreamFailure(new SyntaxError('Unexpected token'))).toBe(false);
    expect(isUpstreamFailure(Object.assign(new TypeError('bad argument'), { code: 'ERR_INVALID_ARG_TYPE' }))).toBe(
      false,
    );
    expect(isUpstreamFailure(new errors.InvalidArgumentError('invalid anthropic-beta header'))).toBe(false);
    expect(isUpstreamFailure(new GatewayError('invalid_request', 'refused by a converter'))).toBe(false);
    expect(isUpstreamFailure(new Error('no code'))).toBe(false);
    expect(isUpstreamFailure('a string')).toBe(false);
  });
});

describe('internalError', () => {
  it('is a 500 that names the gateway, not the upstream', () => {
    const error = internalError();
    expect(error).toMatchObject({ kind: 'internal', status: 500, code: 'internal_error' });
    expect(error.message).toContain('not the upstream provider');
  });
});
