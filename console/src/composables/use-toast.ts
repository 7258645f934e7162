/** Short notices shown at the bottom of the page (saved, copied, failed), read out by screen readers. */
import { ref } from 'vue';

export interface Toast {
  id: number;
  message: string;
  kind: 'info' | 'error';
}

const toasts = ref<Toast[]>([]);
let nextId = 1;

const timers = new Map<number, ReturnType<typeof setTimeout>>();

export function useToast() {
  /** The same notice shown again while it is still up restarts its time instead of stacking a copy. */
  function show(message: string, kind: Toast['kind'] = 'info', durationMs = 4000): void {
    const showing = toasts.value.find((toast) => toast.message === message && toast.kind === kind);
    const id = showing?.id ?? nextId++;
    if (!showing) toasts.value = [...toasts.value, { id, message, kind }];
    clearTimeout(timers.get(id));
    timers.set(
      id,
      setTimeout(() => dismiss(id), durationMs),
    );
  }

  function dismiss(id: number): void {
    clearTimeout(timers.get(id));
    timers.delete(id);
    toasts.value = toasts.value.filter((toast) => toast.id !== id);
  }

  return { toasts, show, dismiss };
}
