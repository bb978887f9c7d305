// The worker thread's entry: the server runs from TypeScript sources, so the worker registers the same
// TypeScript loader before it loads the task module.
import { register } from 'tsx/esm/api';

register();
const task = await import('./recognition.worker.ts');

export default task.default;
