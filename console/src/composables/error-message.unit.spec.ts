// @vitest-environment happy-dom
/**
 * A refused input in the console's language: the rule and field the server names, not its English
 * sentence with a raw field prefix ("password: must be at least 8 characters").
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { api } from '../api/client.ts';
import { i18n, setLocale } from '../locales/index.ts';
import { fakeApi, reply } from '../testing/fake-api.ts';
import { describeError } from './use-error-message.ts';

const t = (key: string, values?: Record<string, unknown>) => i18n.global.t(key, values ?? {});
const te = (key: string) => i18n.global.te(key);

async function refusal(error: Record<string, unknown>): Promise<unknown> {
  fakeApi({ 'POST /auth/register': () => reply(400, { error }) });
  return api.post('/auth/register', {}).catch((caught) => caught);
}

afterEach(() => {
  vi.unstubAllGlobals();
  setLocale('en');
});

describe('an /api refusal in words', () => {
  it('says the broken rule with the field’s name and the bound, in English and Chinese', async () => {
    const short = await refusal({
      code: 'invalid_request',
      message: 'password: must be at least 8 characters',
      field: 'password',
      rule: 'too_short',
      limit: 8,
    });
    expect(describeError(short, t, te)).toBe('The password must be at least 8 characters.');
    setLocale('zh-CN');
    expect(describeError(short, t, te)).toBe('密码至少需要 8 个字符。');
    const long = await refusal({ code: 'invalid_request', message: 'x', field: 'name', rule: 'too_long', limit: 64 });
    expect(describeError(long, t, te)).toBe('名称最多 64 个字符。');
    const listed = await refusal({
      code: 'invalid_request',
      message: 'x',
      field: 'ip_allowlist[2]',
      rule: 'invalid_format',
    });
    expect(describeError(listed, t, te)).toBe('IP 白名单的格式不对。');
  });

  it('translates a known code, and keeps the server’s sentence for one it does not know', async () => {
    setLocale('zh-CN');
    expect(
      describeError(await refusal({ code: 'last_admin', message: 'This is the last…', field: 'role' }), t, te),
    ).toBe('这是最后一位已启用的管理员；请先提升或启用另一位管理员。');
    expect(describeError(await refusal({ code: 'something_new', message: 'A new refusal.' }), t, te)).toBe(
      'A new refusal.',
    );
    // A server from before the rules: the sentence as it came.
    expect(
      describeError(
        await refusal({ code: 'invalid_request', message: 'password: too short', field: 'password' }),
        t,
        te,
      ),
    ).toBe('password: too short');
  });

  it('names an unknown field generically rather than by its wire name', async () => {
    const odd = await refusal({ code: 'invalid_request', message: 'x', field: 'user_id', rule: 'required' });
    expect(describeError(odd, t, te)).toBe('A value is required.');
  });
});
