/**
 * Copies text: the async Clipboard API where the page is a secure context, else the selection of a
 * given input and `execCommand('copy')` (plain http on a LAN address, say).
 */
import { ref } from 'vue';

export function useClipboard(resetAfterMs = 2000) {
  const copied = ref(false);
  let timer: ReturnType<typeof setTimeout> | undefined;

  async function copy(text: string, fallbackInput?: HTMLInputElement | null): Promise<boolean> {
    let ok = false;
    try {
      if (globalThis.navigator?.clipboard && globalThis.isSecureContext) {
        await navigator.clipboard.writeText(text);
        ok = true;
      }
    } catch {
      ok = false;
    }
    if (!ok && fallbackInput) {
      fallbackInput.focus();
      fallbackInput.select();
      ok = document.execCommand?.('copy') ?? false;
    }
    copied.value = ok;
    clearTimeout(timer);
    if (ok) timer = setTimeout(() => (copied.value = false), resetAfterMs);
    return ok;
  }

  return { copied, copy };
}
