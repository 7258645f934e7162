/**
 * @module gateway/relay/validation-message
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

function describeIssue(issue: Issue): string {
  switch (issue.code) {
    case 'too_big':
      if (issue.origin === 'array') return `must have at most ${issue.maximum} items`;
      if (issue.origin === 'string') return `must be at most ${issue.maximum} characters`;
      return `must be at most ${issue.maximum}`;
    case 'too_small':
      if (issue.origin === 'array') return `must have at least ${issue.minimum} item${issue.minimum === 1 ? '' : 's'}`;
      if (issue.origin === 'string') return issue.message.startsWith('Too small') ? `must not be empty` : issue.message;
      return `must be at least ${issue.minimum}`;
    case 'invalid_type':
      return issue.input === undefined ? 'is required' : `must be ${article(issue.expected)}`;
    case 'invalid_value':
      return `must be one of ${issue.values.map((value) => JSON.stringify(value)).join(', ')}`;
    case 'invalid_union':
      return describeUnion(issue);
    case 'unrecognized_keys':
      return `has unknown field(s) ${issue.keys.join(', ')}`;
    default:
      return issue.message;
  }
}

function article(expected: string): string {
  if (expected === 'int') return 'an integer';
  return /^[aeiou]/.test(expected) ? `an ${expected}` : `a ${expected}`;
}

/** For a union, report the branch that got furthest, so `content` errors read naturally. */
function describeUnion(issue: Extract<Issue, { code: 'invalid_union' }>): string {
  if (issue.errors.length === 0) return issue.message;
  const deepest = issue.errors.map((branch) => branch[0]).filter((first): first is Issue => first !== undefined);
  deepest.sort((left, right) => right.path.length - left.path.length);
  const best = deepest[0];
  if (best && best.path.length > 0) return `${fieldPath(best.path)}: ${describeIssue(best)}`;
  return 'does not match any of the accepted forms';
}

export function describeIssues(issues: readonly Issue[]): string {
  const first = issues[0];
  if (!first) return 'invalid';
  const where = fieldPath(first.path);
  const what = describeIssue(first);
  // A union branch already names its own sub-path.
  if (first.code === 'invalid_union' && what.includes(': '))
    return where ? `${where}.${what}`.replace('.[', '[') : what;
  return where ? `${where}: ${what}` : what;
}

export function firstIssueField(issues: readonly Issue[]): string | null {
  const first = issues[0];
  return first && first.path.length > 0 ? fieldPath(first.path) : null;
}
