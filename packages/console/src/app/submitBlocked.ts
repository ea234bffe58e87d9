/**
 * A form that is submitted with a field in error says so in a toast ('Unable to submit because of some errors')
 * besides marking the field, so a problem scrolled out of view or in a collapsed section is not missed.
 */
import type { FormInstance } from 'antd';
import { ERROR_TOAST_MS } from '@crawldeck/shared/core';
import i18n from '../locales/index.ts';
import { toasts } from '../api/toasts.ts';

export function showSubmitBlocked(): void {
  void toasts().error({ content: i18n.t('common:submitBlocked'), duration: ERROR_TOAST_MS / 1000 });
}

/** The form's values once every field is valid; otherwise the blocked-submission toast and a rejection. */
export async function validFields<V>(form: FormInstance<V>): Promise<V> {
  try {
    return await form.validateFields();
  } catch (err) {
    showSubmitBlocked();
    throw err;
  }
}
