/**
 * @module gateway/providers/read-request
 * What every ingress reader (client request → neutral request) shares: its result, the refusal it
 * raises for what no converted channel can do, and how turns are gathered.
 */
import type { z } from 'zod';
import type { NeutralPart, NeutralRequest, NeutralTurn } from '../../contracts/neutral/request.ts';
import { describeIssues, firstIssueField } from '../../contracts/validation-message.ts';
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
 * The client's body as its format's whole contract types it, or a 400 naming the field and the rule.
 * The relay checked only what it reads itself before routing (the endpoint's envelope), so that a
 * channel of the client's own format judges the rest; a reader takes apart what it converts and
 * checks it here, on the converted path only.
 */
export function checkedBody<T>(contract: z.ZodType<T>, body: Record<string, unknown>): T {
  const parsed = contract.safeParse(body);
  if (!parsed.success) {
    throw new GatewayError('invalid_request', describeIssues(parsed.error.issues), {
      param: firstIssueField(parsed.error.issues),
    });
  }
  // The client's own object, not zod's copy: the conversion is kept per body (converted-request.ts).
  return body as T;
}

/**
 * Appends parts to the last turn when it has the same role: consecutive messages of one role form
 * one turn (tool results and the user text after them too), as the strictest upstreams want.
 */
export function pushTurn(turns: NeutralTurn[], role: NeutralTurn['role'], parts: NeutralPart[]): void {
  const last = turns.at(-1);
  if (last && last.role === role) last.parts.push(...parts);
  else turns.push({ role, parts });
}
