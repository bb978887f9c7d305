import { describe, expect, it, vi } from 'vitest';
import type { FormInstance } from 'antd';
import { validatedValues } from './validated-values';

const formAnswering = (...answers: Array<() => Promise<unknown>>) => {
  const validateFields = vi.fn();
  for (const answer of answers) validateFields.mockImplementationOnce(answer);
  return { form: { validateFields } as unknown as FormInstance<{ reason: string }>, validateFields };
};

describe('validated form values', () => {
  it('answers the values when the rules pass', async () => {
    const { form } = formAnswering(() => Promise.resolve({ reason: '核查完毕' }));
    expect(await validatedValues(form)).toEqual({ reason: '核查完毕' });
  });

  it('answers null when a rule fails, without validating again', async () => {
    const { form, validateFields } = formAnswering(() => Promise.reject({ errorFields: [{ name: ['reason'] }] }));
    expect(await validatedValues(form)).toBeNull();
    expect(validateFields).toHaveBeenCalledTimes(1);
  });

  it('validates again when a newer validation overtook this one, so 确定 is not lost', async () => {
    const { form, validateFields } = formAnswering(
      () => Promise.reject({ errorFields: [], outOfDate: true }),
      () => Promise.resolve({ reason: '补录随访数据' }),
    );
    expect(await validatedValues(form)).toEqual({ reason: '补录随访数据' });
    expect(validateFields).toHaveBeenCalledTimes(2);
  });
});
