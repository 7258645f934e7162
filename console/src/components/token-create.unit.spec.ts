// @vitest-environment happy-dom
/**
 * Creating a key says what would go wrong before it does: a name past 64 characters is not cut but
 * named (it was cut to 64 by `maxlength` without a word), and a date already past is warned about
 * before the key is made; a refusal from the server reads in the console's language.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { nextTick, ref } from 'vue';
import { useLengthLimit } from '../composables/use-length-limit.ts';
import { i18n, setLocale } from '../locales/index.ts';
import { fakeApi, reply, sampleToken } from '../testing/fake-api.ts';
import { mountPage, settle } from '../testing/mount.ts';
import TokensView from '../views/TokensView.vue';

afterEach(() => {
  vi.unstubAllGlobals();
  document.body.innerHTML = '';
  setLocale('en');
});

async function openCreate() {
  const api = fakeApi({
    'GET /tokens': () => ({ items: [] }),
    'POST /tokens': (call) =>
      reply(201, { ...sampleToken({ name: (call.body as { name: string }).name }), key: 'sk-x' }),
  });
  const { wrapper } = await mountPage(TokensView, { path: '/tokens', user: { role: 'user' } });
  await settle();
  await wrapper.find('[data-test=create-token]').trigger('click');
  await settle();
  return { wrapper, ...api };
}

describe('the length limit of a name', () => {
  it('says how far past the limit a text is, counting what the server counts (trimmed)', async () => {
    const text = ref('x'.repeat(64));
    // useI18n needs a component; the app's i18n instance is global, so a tiny host is enough.
    const { mount } = await import('@vue/test-utils');
    let limit!: ReturnType<typeof useLengthLimit>;
    mount(
      {
        setup() {
          limit = useLengthLimit(text);
          return () => null;
        },
      },
      { global: { plugins: [i18n] } },
    );
    expect(limit.tooLong.value).toBe(false);
    text.value = `  ${'x'.repeat(64)}  `;
    expect(limit.message.value).toBeUndefined();
    text.value = 'x'.repeat(68);
    await nextTick();
    expect(limit.message.value).toBe('At most 64 characters fit; this is 68.');
    setLocale('zh-CN');
    expect(limit.message.value).toBe('最多 64 个字符，当前 68 个。');
  });
});

describe('creating a key', () => {
  it('names a 68-character name as too long instead of cutting it, and sends nothing', async () => {
    const { wrapper, calls } = await openCreate();
    const name = wrapper.find('[data-test=create-token-name]');
    expect(name.attributes('maxlength')).toBeUndefined();
    await name.setValue('k'.repeat(68));
    expect(wrapper.find('[data-test=create-token-form] .field-error').text()).toBe(
      'At most 64 characters fit; this is 68.',
    );
    expect(wrapper.find('[data-test=create-token-submit]').attributes('disabled')).toBeDefined();
    await wrapper.find('[data-test=create-token-form]').trigger('submit');
    await settle();
    expect(calls.filter((call) => call.method === 'POST')).toEqual([]);
  });

  it('warns before making a key whose expiry date has passed, and its button says it will be made expired', async () => {
    const { wrapper, calls } = await openCreate();
    await wrapper.find('[data-test=create-token-name]').setValue('old');
    const expires = wrapper.find('[data-test=token-expires]');
    const tomorrow = new Date(Date.now() + 86_400_000).toLocaleDateString('sv');
    await expires.setValue(tomorrow);
    expect(wrapper.find('[data-test=expired-warning]').exists()).toBe(false);
    await expires.setValue('2020-01-31');
    expect(wrapper.find('[data-test=expired-warning]').text()).toContain('This date has passed');
    expect(wrapper.find('[data-test=create-token-submit]').text()).toBe('Create it expired');
    await wrapper.find('[data-test=create-token-form]').trigger('submit');
    await settle();
    expect(calls.find((call) => call.method === 'POST')!.body).toMatchObject({
      name: 'old',
      expires_at: new Date('2020-01-31T23:59:59').toISOString(),
    });
  });

  it('shows the server’s refusal of a field in the console’s language, beside the field', async () => {
    fakeApi({
      'GET /tokens': () => ({ items: [] }),
      'POST /tokens': () =>
        reply(400, {
          error: {
            code: 'invalid_request',
            message: 'rpm_limit: must be at least 1',
            field: 'rpm_limit',
            rule: 'too_small',
            limit: 1,
          },
        }),
    });
    setLocale('zh-CN');
    const { wrapper } = await mountPage(TokensView, { path: '/tokens', user: { role: 'user' } });
    setLocale('zh-CN');
    await settle();
    await wrapper.find('[data-test=create-token]').trigger('click');
    await settle();
    await wrapper.find('[data-test=create-token-name]').setValue('ci');
    await wrapper.find('[data-test=create-token-form]').trigger('submit');
    await settle();
    expect(wrapper.find('[data-test=create-token-form] .field-error').text()).toBe('每分钟请求数不能小于 1。');
    expect(wrapper.text()).not.toContain('rpm_limit');
  });
});
