/**
 * @module gateway/errors
 * The gateway's error vocabulary. A `GatewayError` names what went wrong in format-neutral terms;
 * each endpoint renders it in its own wire shape (OpenAI or Anthropic) with the right status.
 */

export type ErrorKind =
  | 'invalid_request'
  | 'authentication'
  | 'permission'
  | 'not_found'
  | 'request_too_large'
  | 'unsupported_media_type'
  | 'rate_limit'
  | 'insufficient_quota'
  | 'upstream'
  | 'overloaded'
  | 'timeout'
  | 'internal';

const defaultStatus: Record<ErrorKind, number> = {
  invalid_request: 400,
  authentication: 401,
  permission: 403,
  not_found: 404,
  request_too_large: 413,
  unsupported_media_type: 415,
  rate_limit: 429,
  insufficient_quota: 429,
  upstream: 502,
  overloaded: 503,
  timeout: 504,
  internal: 500,
};

export interface GatewayErrorOptions {
  status?: number;
  /** the request field at fault, e.g. `messages[0].content` */
  param?: string | null;
  /** a stable machine code, e.g. `model_not_found`, `invalid_api_key` */
  code?: string | null;
  /** headers to send with the error, e.g. `retry-after` */
  headers?: Record<string, string>;
}

export class GatewayError extends Error {
  readonly kind: ErrorKind;
  readonly status: number;
  readonly param: string | null;
  readonly code: string | null;
  readonly headers: Record<string, string>;

  constructor(kind: ErrorKind, message: string, options: GatewayErrorOptions = {}) {
    super(message);
    this.name = 'GatewayError';
    this.kind = kind;
    this.status = options.status ?? defaultStatus[kind];
    this.param = options.param ?? null;
    this.code = options.code ?? null;
    this.headers = options.headers ?? {};
  }
}

export interface UpstreamCallErrorOptions extends GatewayErrorOptions {
  /**
   * Another channel may answer where this one did not, whatever the status: a success status whose
   * body the relay cannot read (a stream that is no event stream) is the channel's fault, not the request's.
   */
  retryable?: boolean;
}

/** The upstream answered with an error status; `isRetryable` drives failover before the first byte. */
export class UpstreamCallError extends GatewayError {
  readonly upstreamStatus: number;
  readonly isRetryable: boolean;

  constructor(kind: ErrorKind, message: string, upstreamStatus: number, options: UpstreamCallErrorOptions = {}) {
    super(kind, message, options);
    this.name = 'UpstreamCallError';
    this.upstreamStatus = upstreamStatus;
    this.isRetryable =
      options.retryable === true ||
      upstreamStatus === 0 ||
      upstreamStatus === 408 ||
      upstreamStatus === 409 ||
      upstreamStatus === 429 ||
      upstreamStatus >= 500;
  }
}
