/**
 * A length limit said out loud: the input takes any length (no `maxlength`, which cut a pasted
 * 68-character name to 64 without a word), and past the limit a message says by how much, so the
 * form can refuse to send it.
 */
import { computed, type Ref } from 'vue';
import { useI18n } from 'vue-i18n';

/** The contracts' limit on key, account and channel names. */
export const NAME_LIMIT = 64;

export function useLengthLimit(text: Ref<string>, limit = NAME_LIMIT) {
  const { t } = useI18n();
  // Counted as the server counts: UTF-16 units of the trimmed text.
  const length = computed(() => text.value.trim().length);
  const tooLong = computed(() => length.value > limit);
  const message = computed(() => (tooLong.value ? t('app.tooLong', { limit, count: length.value }) : undefined));
  return { tooLong, message };
}
