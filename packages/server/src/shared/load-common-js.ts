import { createRequire } from 'node:module';

/**
 * Loads a CommonJS package synchronously where it is first needed. The Redis libraries (ioredis, bullmq, the
 * Socket.IO adapter: ≈ 0.5 s and 15 MB of a start) are needed only when REDIS_URL is set, from constructors
 * that run synchronously at start, so a dynamic `import()` would not do (docs/performance.md); sanitize-html is
 * called by synchronous functions on the first article written.
 */
export const loadCommonJs = createRequire(import.meta.url);
