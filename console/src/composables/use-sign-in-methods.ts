/**
 * Which sign-in methods the gateway offers, asked when a sign-in page opens. Until the answer is in,
 * or when it cannot be had, the password form shows: the server refuses it with a clear message if
 * passwords are off.
 */
import type { SignInMethods } from '@contracts/console-api-sign-in.ts';
import { computed, type Ref, ref } from 'vue';
import { getSignInMethodsApi } from '../api/auth.ts';

export function useSignInMethods() {
  const methods: Ref<SignInMethods | null> = ref(null);
  getSignInMethodsApi().then(
    (answer) => {
      methods.value = answer;
    },
    // Unanswered: the password form stays, as before the gateway had other methods.
    () => {},
  );
  return {
    methods,
    passwords: computed(() => methods.value?.password ?? true),
    sso: computed(() => methods.value?.sso ?? null),
  };
}
