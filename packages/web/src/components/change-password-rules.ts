import { MSG, passwordLengthError } from '@ecrf/core';

/** Change-password field rules (platform §5), each answering the first broken rule or null. */
export function oldPasswordError(value: string | undefined): string | null {
  return value ? null : MSG.oldPasswordRequired;
}

/** In reset mode there is no original password, so the "same as original" rule does not apply. */
export function newPasswordError(value: string | undefined, oldPassword: string | undefined): string | null {
  if (!value) return MSG.passwordRequired;
  if (oldPassword && value === oldPassword) return MSG.passwordSameAsOld;
  return passwordLengthError(value);
}

export function confirmPasswordError(value: string | undefined, newPassword: string | undefined): string | null {
  if (!value) return MSG.confirmRequired;
  const length = passwordLengthError(value);
  if (length) return length;
  return value === newPassword ? null : MSG.confirmMismatch;
}

/** Adapts a rule to an antd Form validator. */
export function asValidator(check: (value: string | undefined) => string | null) {
  return {
    validator: async (_rule: unknown, value: string | undefined) => {
      const error = check(value);
      if (error) throw new Error(error);
    },
  };
}
