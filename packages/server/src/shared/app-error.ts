import { MSG } from '@ecrf/core';

/** The one error type services throw; the error handler turns it into the spec's envelope. */
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly data: unknown = null,
  ) {
    super(message);
  }

  static badRequest(code: string, msg: string, data: unknown = null) {
    return new AppError(400, code, msg, data);
  }
  static unauthorized(code = 'auth.unauthenticated', msg: string = MSG.loginTimeout) {
    return new AppError(401, code, msg);
  }
  static forbidden(code = 'auth.forbidden', msg: string = MSG.forbidden) {
    return new AppError(403, code, msg);
  }
  static notFound(code: string, msg: string) {
    return new AppError(404, code, msg);
  }
  static conflict(code: string, msg: string) {
    return new AppError(409, code, msg);
  }
}
