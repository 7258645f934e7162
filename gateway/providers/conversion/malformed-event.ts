/**
 * @module gateway/providers/conversion/malformed-event
 * What a converting stream reader makes of an upstream event whose data is not JSON: the end of the
 * reply with an error, not a silent skip. A converted reply cannot carry what it cannot read, so
 * dropping it would hand the client a shortened answer that looks whole and record it as a success.
 * An empty data line is nothing, not an error.
 */
import type { ReplyPart } from './reply.ts';

export function partsOfMalformedEvent(data: string): ReplyPart[] {
  if (data.trim() === '') return [];
  return [
    {
      type: 'error',
      errorType: 'api_error',
      message: 'The upstream provider sent a stream event that is not JSON; the reply was ended there.',
    },
  ];
}
