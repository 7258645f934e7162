/**
 * @module gateway/providers/read-request
 * What every ingress reader (client request → neutral request) shares: its result, the refusal it
 * raises for what no converted channel can do, and how turns are gathered.
 */
import type { NeutralPart, NeutralRequest, NeutralTurn } from '../../contracts/neutral/request.ts';
import { GatewayError } from '../errors.ts';

export interface ReadRequest {
  request: NeutralRequest;
  /** what the reader dropped, one short sentence each (sent back in `x-gateway-warnings`) */
  warnings: string[];
}

export interface ReaderOptions {
  /** the channel kind's name, as warnings say it: "seed dropped: no Anthropic equivalent" */
  target: string;
}

/** A 400 naming the field, raised before any upstream call. */
export const refused = (message: string, param: string) => new GatewayError('invalid_request', message, { param });

/**
 * Appends parts to the last turn when it has the same role: consecutive messages of one role form
 * one turn (tool results and the user text after them too), as the strictest upstreams want.
 */
export function pushTurn(turns: NeutralTurn[], role: NeutralTurn['role'], parts: NeutralPart[]): void {
  const last = turns.at(-1);
  if (last && last.role === role) last.parts.push(...parts);
  else turns.push({ role, parts });
}
