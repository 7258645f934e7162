/**
 * @module contracts/validation-message
 * Turns zod issues into one sentence that names the field and the rule broken, e.g.
 * `temperature: must be at most 2 (got 3)`. Clients show this message to people.
 */
import type { z } from 'zod';

type Issue = z.core.$ZodIssue;

export function fieldPath(path: readonly PropertyKey[]): string {
  let text = '';
  for (const segment of path) {
    if (typeof segment === 'number') text += `[${segment}]`;
    else text += text ? `.${String(segment)}` : String(segment);
  }
  return text;
}

interface Described {
  path: readonly PropertyKey[];
  text: string;
}

/** The issue's full path and rule; a union is resolved into the branch that explains it best. */
function resolve(issue: Issue): Described {
  if (issue.code !== 'invalid_union') return { path: issue.path, text: describeIssue(issue) };
  const options = (issue as { options?: unknown[] }).options;
  if (issue.errors.length === 0 && options) {
    return { path: issue.path, text: `must be one of ${options.map((value) => JSON.stringify(value)).join(', ')}` };
  }
  const firsts = issue.errors.map((branch) => branch[0]).filter((first): first is Issue => first !== undefined);
  // A branch that failed inside the value got furthest: it names what is wrong in the closest match.
  const deepest = firsts
    .filter((first) => first.path.length > 0)
    .sort((left, right) => right.path.length - left.path.length)[0];
  if (deepest) {
    const inner = resolve(deepest);
    return { path: [...issue.path, ...inner.path], text: inner.text };
  }
  if (firsts.every((first) => first.code === 'invalid_type')) {
    if (firsts.some((first) => receivedNothing(first))) return { path: issue.path, text: 'is required' };
    const types = [...new Set(firsts.map((first) => article((first as { expected: string }).expected)))];
    return { path: issue.path, text: `must be ${types.join(' or ')}` };
  }
  // Report the branch that says more than a type mismatch, e.g. a too-long array or an unknown value.
  const telling = firsts.find((first) => first.code !== 'invalid_type') ?? firsts[0];
  return { path: issue.path, text: telling ? describeIssue(telling) : 'does not match any of the accepted forms' };
}

function describeIssue(issue: Issue): string {
  switch (issue.code) {
    case 'too_big':
      if (issue.origin === 'array') return `must have at most ${issue.maximum} items`;
      if (issue.origin === 'string') return `must be at most ${issue.maximum} characters`;
      return `must be at most ${issue.maximum}`;
    case 'too_small':
      if (issue.origin === 'array') return `must have at least ${issue.minimum} item${issue.minimum === 1 ? '' : 's'}`;
      if (issue.origin === 'string') return issue.message.startsWith('Too small') ? 'must not be empty' : issue.message;
      return `must be at least ${issue.minimum}`;
    case 'invalid_type':
      return receivedNothing(issue) ? 'is required' : `must be ${article(issue.expected)}`;
    case 'invalid_value':
      return `must be one of ${issue.values.map((value) => JSON.stringify(value)).join(', ')}`;
    case 'invalid_union':
      return resolve(issue).text;
    case 'invalid_format':
      return issue.message.startsWith('Invalid') ? `must be a valid ${issue.format}` : issue.message;
    case 'unrecognized_keys':
      return `has unknown field(s) ${issue.keys.join(', ')}`;
    default:
      return issue.message;
  }
}

/** zod reports a missing field as a type mismatch against `undefined`. */
function receivedNothing(issue: Issue): boolean {
  return issue.code === 'invalid_type' && /received undefined$/.test(issue.message);
}

function article(expected: string): string {
  if (expected === 'int') return 'an integer';
  return /^[aeiou]/.test(expected) ? `an ${expected}` : `a ${expected}`;
}

export function describeIssues(issues: readonly Issue[]): string {
  const first = issues[0];
  if (!first) return 'invalid';
  const { path, text } = resolve(first);
  const where = fieldPath(path);
  return where ? `${where}: ${text}` : text;
}

export function firstIssueField(issues: readonly Issue[]): string | null {
  const first = issues[0];
  if (!first) return null;
  const where = fieldPath(resolve(first).path);
  return where || null;
}
