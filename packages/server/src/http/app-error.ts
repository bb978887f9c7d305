// AppError lives in shared/ so services can throw it without depending on the HTTP layer; the HTTP layer
// (guards, routes, the error handler) keeps importing it from here.
export { AppError } from '../shared/app-error.js';
