/** Short notices shown at the bottom of the page (saved, copied, failed), read out by screen readers. */
import { ref } from 'vue';

export interface Toast {
  id: number;
  message: string;
  kind: 'info' | 'error';
}

const toasts = ref<Toast[]>([]);
let nextId = 1;

export function useToast() {
  function show(message: string, kind: Toast['kind'] = 'info', durationMs = 4000): void {
    const id = nextId++;
    toasts.value = [...toasts.value, { id, message, kind }];
    setTimeout(() => dismiss(id), durationMs);
  }

  function dismiss(id: number): void {
    toasts.value = toasts.value.filter((toast) => toast.id !== id);
  }

  return { toasts, show, dismiss };
}
