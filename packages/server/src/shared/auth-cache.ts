import type { AppContext } from '../app-context.js';

/**
 * What the permission checks compute from users, roles, menus and study staff, kept per auth generation: a
 * number the database raises whenever any of those tables changes (triggers of migration 0028). Every request
 * reads the generation with its session, in the one statement it needs anyway, so a changed role or a removed
 * study member takes effect on the very next request on every app server, with nothing to notify and no time
 * to wait out. The session itself (revoked, expired, disabled user) is never cached.
 */
interface GenerationCache {
  generation: number;
  entries: Map<string, unknown>;
}

/** A safety bound: a generation rarely sees this many users and studies before it changes. */
const MAX_ENTRIES = 50_000;

const caches = new WeakMap<AppContext, GenerationCache>();

export async function cachedAtGeneration<T>(
  ctx: AppContext,
  generation: number,
  key: string,
  compute: () => Promise<T>,
): Promise<T> {
  let cache = caches.get(ctx);
  if (!cache || cache.generation < generation || cache.entries.size >= MAX_ENTRIES) {
    cache = { generation, entries: new Map() };
    caches.set(ctx, cache);
  }
  // A request that read an older generation than the cache's (it started before a change) computes afresh.
  if (cache.generation !== generation) return compute();
  if (cache.entries.has(key)) return cache.entries.get(key) as T;
  const value = await compute();
  // Still the same generation: a newer request may have replaced the cache while this one computed.
  if (caches.get(ctx) === cache) cache.entries.set(key, value);
  return value;
}

const recordStudies = new WeakMap<AppContext, Map<number, number>>();

/**
 * The study a patient's casebook belongs to never changes once it exists: looked up once per app server
 * (the study guard runs it on most patient-level requests).
 */
export async function cachedRecordStudy(
  ctx: AppContext,
  subjectRecordId: number,
  lookup: () => Promise<number | undefined>,
): Promise<number | undefined> {
  let known = recordStudies.get(ctx);
  if (!known || known.size >= MAX_ENTRIES) {
    known = new Map();
    recordStudies.set(ctx, known);
  }
  const cached = known.get(subjectRecordId);
  if (cached !== undefined) return cached;
  const studyId = await lookup();
  if (studyId !== undefined) known.set(subjectRecordId, studyId);
  return studyId;
}
