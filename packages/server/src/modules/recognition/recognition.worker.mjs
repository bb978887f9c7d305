// The OCR process's entry (ocr.pool.ts forks it): the server runs from TypeScript sources, so the process
// registers the same TypeScript loader before it loads the task module. The bench imports it in process.
import { register } from 'tsx/esm/api';

register();
const task = await import('./recognition.worker.ts');

export default task.default;
