/**
 * @module gateway/console-api/validation-rule
 * The rule behind a refused `/api` input, in a form a client can translate: the console shows
 * "密码至少需要 8 个字符" from `{field: 'password', rule: 'too_short', limit: 8}` instead of the
 * English sentence. The sentence (`describeIssues`) stays in `message` for scripts and logs.
 */
import type { z } from 'zod';
import type { ValidationRule } from '../../contracts/console-api.ts';

type Issue = z.core.$ZodIssue;

export interface BrokenRule {
  rule: ValidationRule;
  limit?: number;
}

const formatRules: Record<string, ValidationRule> = {
  email: 'invalid_email',
  datetime: 'invalid_date',
  date: 'invalid_date',
};

/** Lengths of strings, counts of arrays, sizes of numbers: one rule name for each side of each. */
function boundRule(origin: string, side: 'min' | 'max'): ValidationRule {
  if (origin === 'string') return side === 'min' ? 'too_short' : 'too_long';
  if (origin === 'array' || origin === 'set') return side === 'min' ? 'too_few' : 'too_many';
  return side === 'min' ? 'too_small' : 'too_big';
}

/** The value at `path` in what was sent; zod's own messages can be replaced, so they are not read. */
function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const segment of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[segment];
  }
  return value;
}

/**
 * The first issue's rule (the one `message` and `field` describe), and its bound when it has one;
 * `input` is what was parsed, to tell a missing field from one of the wrong type.
 */
export function brokenRule(issues: readonly Issue[], input: unknown): BrokenRule | null {
  const issue = issues[0];
  if (!issue) return null;
  switch (issue.code) {
    case 'too_small':
      // `.min(1)` on a string is how the contracts say "not empty".
      if (issue.origin === 'string' && Number(issue.minimum) === 1) return { rule: 'empty' };
      return { rule: boundRule(issue.origin, 'min'), limit: Number(issue.minimum) };
    case 'too_big':
      return { rule: boundRule(issue.origin, 'max'), limit: Number(issue.maximum) };
    case 'invalid_type':
      if (valueAt(input, issue.path) === undefined) return { rule: 'required' };
      return { rule: issue.expected === 'int' ? 'not_integer' : 'wrong_type' };
    case 'invalid_format':
      return { rule: formatRules[issue.format] ?? 'invalid_format' };
    case 'invalid_value':
      return { rule: 'invalid_choice' };
    case 'unrecognized_keys':
      return { rule: 'unknown_field' };
    default:
      return { rule: 'invalid' };
  }
}
