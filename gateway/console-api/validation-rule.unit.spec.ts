import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import {
  createTokenRequestSchema,
  registerRequestSchema,
  updateUserRequestSchema,
  usageOverviewQuerySchema,
} from '../../contracts/console-api.ts';
import { brokenRule } from './validation-rule.ts';

function ruleOf(schema: z.ZodType, input: unknown) {
  const issues = schema.safeParse(input).error?.issues;
  if (!issues) throw new Error('the input was accepted');
  return brokenRule(issues, input);
}

describe('the rule a refused console input broke', () => {
  it('names a string bound with its length', () => {
    expect(ruleOf(registerRequestSchema, { email: 'a@example.com', password: 'short' })).toEqual({
      rule: 'too_short',
      limit: 8,
    });
    expect(ruleOf(createTokenRequestSchema, { name: 'x'.repeat(68) })).toEqual({ rule: 'too_long', limit: 64 });
    expect(ruleOf(createTokenRequestSchema, { name: '   ' })).toEqual({ rule: 'empty' });
  });

  it('names number and list bounds, integers, formats, choices and missing fields', () => {
    expect(ruleOf(createTokenRequestSchema, { name: 'k', rpm_limit: 0 })).toEqual({ rule: 'too_small', limit: 1 });
    expect(ruleOf(createTokenRequestSchema, { name: 'k', quota: 1.5 })).toEqual({ rule: 'not_integer' });
    expect(ruleOf(createTokenRequestSchema, { name: 'k', budget_usd: 2_000_000 })).toEqual({
      rule: 'too_big',
      limit: 1_000_000,
    });
    expect(ruleOf(createTokenRequestSchema, { name: 'k', models: Array(257).fill('m') })).toEqual({
      rule: 'too_many',
      limit: 256,
    });
    expect(ruleOf(registerRequestSchema, { email: 'not-an-email', password: 'long enough' })).toEqual({
      rule: 'invalid_email',
    });
    expect(ruleOf(createTokenRequestSchema, { name: 'k', expires_at: 'tomorrow' })).toEqual({ rule: 'invalid_date' });
    expect(ruleOf(createTokenRequestSchema, { name: 'k', ip_allowlist: ['not an ip'] })).toEqual({
      rule: 'invalid_format',
    });
    expect(ruleOf(updateUserRequestSchema, { role: 'owner' })).toEqual({ rule: 'invalid_choice' });
    expect(ruleOf(registerRequestSchema, { password: 'long enough' })).toEqual({ rule: 'required' });
    expect(ruleOf(createTokenRequestSchema, { name: 7 })).toEqual({ rule: 'wrong_type' });
    expect(
      ruleOf(usageOverviewQuerySchema, {
        from: new Date().toISOString(),
        to: new Date().toISOString(),
        tz: 'Mars/Base',
      }),
    ).toEqual({ rule: 'invalid' });
  });

  it('has nothing to say without an issue', () => {
    expect(brokenRule([], {})).toBeNull();
  });
});
