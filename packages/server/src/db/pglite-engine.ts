import fs from 'node:fs';
import { PGlite, types as pgliteTypes, type QueryOptions, type Transaction } from '@electric-sql/pglite';
import { namedStatementOf, queryNamed } from './pglite-named.js';

// The embedded engine itself: how its queries are read (wrapPglite in client.ts applies this) and how it is
// started so that commits reach the disk.

/**
 * The types drizzle's PGlite driver reads as the text PostgreSQL sends (timestamp, timestamptz, interval, date, and
 * the arrays of numeric, timestamp, timestamptz, interval and date): it passes these as `parsers` with every query.
 */
const TEXT_READ_TYPES = new Set<number>([
  pgliteTypes.TIMESTAMP,
  pgliteTypes.TIMESTAMPTZ,
  pgliteTypes.INTERVAL,
  pgliteTypes.DATE,
  1231,
  1115,
  1185,
  1187,
  1182,
]);
const asText = (value: string) => value;

/**
 * PGlite merges a query's own `parsers` into a copy of all its 300-odd parsers for every query: ≈ 80 µs each, 8% of
 * the CPU of a save (a profile of bench/crf-save.ts). The client reads drizzle's text types as text itself instead,
 * and a query whose parsers only say so is sent without them: the same values, read without the copy. A statement
 * text marked with `runAsNamedStatement` (the hot path's selects built once) runs as a named prepared statement.
 */
export function adaptQueries(client: PGlite) {
  for (const oid of TEXT_READ_TYPES) client.parsers[oid] = asText;
  const withoutCopy = (options?: QueryOptions) =>
    options?.parsers && Object.keys(options.parsers).every((oid) => TEXT_READ_TYPES.has(Number(oid)))
      ? { ...options, parsers: undefined }
      : options;
  const onQueries = (target: Pick<PGlite, 'query'> | Transaction, inTransaction: boolean) => {
    const query = target.query.bind(target) as PGlite['query'];
    target.query = ((text: string, params?: unknown[], options?: QueryOptions) => {
      const name = namedStatementOf(text);
      return name
        ? queryNamed(client, name, text, params ?? [], withoutCopy(options), inTransaction)
        : query(text, params, withoutCopy(options));
    }) as PGlite['query'];
  };
  onQueries(client, false);
  const transaction = client.transaction.bind(client);
  client.transaction = (work) =>
    transaction((tx) => {
      onQueries(tx, true);
      return work(tx);
    });
}

/**
 * Durability of the embedded database. Out of the box PGlite starts PostgreSQL with `-F` (fsync
 * off), and even with fsync on, its file system layer (Emscripten's NODEFS) answers fsync without
 * telling the operating system and ignores fdatasync. A save acknowledged and audited would then
 * survive kill -9 (the data is in the OS cache) but not an OS crash or a power cut. So: fsync on,
 * the WAL synced with fsync() (the call that reaches the file system layer), and that layer's
 * fsync wired to the host's. Cost measured in docs/performance.md.
 */
export const DURABLE_PGLITE_PARAMS: string[] = [
  ...PGlite.defaultStartParams.filter((param) => param !== '-F'),
  '-c',
  'wal_sync_method=fsync',
  // PostgreSQL's default 128 MB of shared buffers is touched in full inside PGlite's WASM memory and stays
  // resident (≈ 100 MB more than 32 MB). The data files sit in the OS page cache anyway, so a page missed
  // here is a read from memory, not from disk (docs/performance.md, "Server start and memory").
  '-c',
  'shared_buffers=32MB',
];

interface NodeFsStream {
  nfd?: number;
}
interface PgliteModule {
  NODEFS?: { stream_ops?: { fsync?: (stream: NodeFsStream) => number } };
}

/** Host fsync calls made for the embedded database (tests check that commits reach the disk). */
export const hostSyncs = { count: 0 };

function syncToHost(client: PGlite): boolean {
  const ops = (client as unknown as { Module?: PgliteModule }).Module?.NODEFS?.stream_ops;
  if (!ops) return false;
  ops.fsync = (stream) => {
    if (stream.nfd === undefined) return 0;
    try {
      fs.fsyncSync(stream.nfd);
      hostSyncs.count += 1;
      return 0;
    } catch {
      return 29; // EIO: PostgreSQL treats a failed fsync as fatal, as it must.
    }
  };
  return true;
}

/**
 * Opens (creating when new) an embedded database in `dir` whose commits reach the disk; a new one may start as a
 * copy of a dumped data directory (tests start from the migrated template).
 */
export async function openDurablePglite(dir: string, loadDataDir?: Blob): Promise<PGlite> {
  const client = await PGlite.create(dir, { startParams: DURABLE_PGLITE_PARAMS, ...(loadDataDir && { loadDataDir }) });
  if (!syncToHost(client)) console.warn('PGlite file system layer not recognised: commits may not be synced to disk');
  return client;
}
