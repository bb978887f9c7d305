export type ExpressionErrorCode =
  'syntax' | 'too_long' | 'too_deep' | 'unknown_function' | 'arity' | 'unknown_item' | 'runtime';

/**
 * The only error the expression language throws. A broken expression is a definition error found
 * at upload (CONVENTIONS: never a console message at run time), so it carries a position and a
 * message a data manager can act on.
 */
export class ExpressionError extends Error {
  override readonly name = 'ExpressionError';
  constructor(
    readonly code: ExpressionErrorCode,
    message: string,
    readonly position: number | null = null,
  ) {
    super(message);
  }
}
