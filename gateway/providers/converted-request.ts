/**
 * @module gateway/providers/converted-request
 * A client's request read once into the neutral request by its format's reader and written by one
 * channel kind's request writer. The relay asks a provider for the upstream request, then for the
 * reply's reader, with the same client body: the conversion is kept per body (weakly, it goes with
 * the request) rather than redone.
 */
import type { NeutralRequest } from '../../contracts/neutral/request.ts';
import type { UpstreamKind, WrittenRequest } from './kinds.ts';
import type { ReadRequest } from './read-request.ts';

export interface ConvertedRequest extends WrittenRequest {
  neutral: NeutralRequest;
}

/** `read` and the kind's writer, composed and remembered per client body. */
export function requestConverter(
  read: (body: Record<string, unknown>) => ReadRequest,
  kind: Pick<UpstreamKind, 'writeRequest'>,
): (body: Record<string, unknown>) => ConvertedRequest {
  const converted = new WeakMap<object, ConvertedRequest>();
  return (body) => {
    let result = converted.get(body);
    if (!result) {
      const { request: neutral, warnings } = read(body);
      const written = kind.writeRequest(neutral);
      result = { ...written, neutral, warnings: [...warnings, ...written.warnings] };
      converted.set(body, result);
    }
    return result;
  };
}
