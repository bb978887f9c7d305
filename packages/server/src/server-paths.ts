import { fileURLToPath } from 'node:url';

/*
 * Where the server's files are, from the TypeScript sources and from the compiled server alike: this module is
 * src/server-paths.ts, or bundled into a file directly in dist/ (packages/server/build.mjs), one folder below
 * the package either way. Modules deeper in src/ take their paths from here rather than from their own
 * import.meta.url, which in the compiled server names the bundle.
 */
const here = import.meta.url;

/** Running the compiled JavaScript (dist/), not the TypeScript sources through tsx or vitest. */
export const COMPILED = !here.endsWith('.ts');

/** packages/server/, where drizzle/ (the migrations) and package.json are. */
export const SERVER_ROOT = fileURLToPath(new URL('../', here));

/** The folder with the root package.json. */
export const REPOSITORY_ROOT = fileURLToPath(new URL('../../../', here));

/**
 * A worker thread's entry for piscina: the compiled one beside the bundle (build.mjs names each worker entry),
 * or, from the sources, the `.mjs` shim next to the worker that registers tsx before loading it.
 */
export function workerEntry(compiledName: string, sourceShim: URL): string {
  return COMPILED ? new URL(`./${compiledName}`, here).href : sourceShim.href;
}
