/** A sentence for an error in the console's language: known `/api` codes are translated, others kept. */
import { useI18n } from 'vue-i18n';
import { ApiRequestError } from '../api/client.ts';

export function useErrorMessage() {
  const { t, te } = useI18n();
  return function errorMessage(error: unknown): string {
    if (error instanceof ApiRequestError && te(`apiErrors.${error.code}`)) return t(`apiErrors.${error.code}`);
    return error instanceof Error ? error.message : String(error);
  };
}

/** The field an `/api` error names, if any, for showing the message next to that input. */
export function errorField(error: unknown): string | undefined {
  return error instanceof ApiRequestError ? error.field : undefined;
}
