import type { FormInstance } from 'antd';

/**
 * The form's values when its rules pass, else null (the form shows the errors). A validation overtaken by a newer
 * one (a last keystroke's, still running) answers outOfDate instead of the values: validate once more rather than
 * leave the dialog's 确定 without effect.
 */
export async function validatedValues<T>(form: FormInstance<T>): Promise<T | null> {
  try {
    return await form.validateFields();
  } catch (error) {
    if ((error as { outOfDate?: boolean } | null)?.outOfDate) return form.validateFields().catch(() => null);
    return null;
  }
}
