/**
 * @module gateway/providers/printed-body
 * The JSON text of an upstream body the gateway wrote itself (a converted request, an expanded
 * conversation), printed once per body object and kept with it (weakly: it goes with the request).
 * Every attempt then sends the same bytes, with only the members that attempt changes (its channel's
 * model name) written in place (json-members.ts): on an agent's 60 KB turn `JSON.stringify` costs as
 * much as the parse, and a retry used to pay it again.
 *
 * The body must not change after it is first printed; the writers build a fresh object per request.
 */
import { withMembers } from './json-members.ts';

const printed = new WeakMap<object, string>();

/** `body` as JSON with the top-level `changed` members set; the body itself is printed at most once. */
export function printedBody(body: Record<string, unknown>, changed: Record<string, unknown> = {}): string {
  let text = printed.get(body);
  if (text === undefined) {
    text = JSON.stringify(body);
    printed.set(body, text);
  }
  return withMembers(text, changed);
}
