import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');
const COMPILED = path.join(ROOT, 'packages', 'server', 'dist', 'main.js');
/** What the compiled server is built from (packages/server/build.mjs): a newer file there makes dist/ stale. */
const SOURCES = [
  path.join(ROOT, 'packages', 'server', 'src'),
  path.join(ROOT, 'packages', 'core', 'src'),
  path.join(ROOT, 'packages', 'server', 'build.mjs'),
];

function newestChange(entry: string): number {
  const stat = fs.statSync(entry);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = 0;
  for (const name of fs.readdirSync(entry)) newest = Math.max(newest, newestChange(path.join(entry, name)));
  return newest;
}

let warned = false;

/**
 * Node's arguments to start the server as `npm start` does: the compiled server (`npm run build`, which
 * `npm run test:e2e` runs first) when it is there and no newer than its sources; otherwise the TypeScript
 * sources through tsx, so a test never runs against code older than the checkout.
 */
export function serverArgs(): string[] {
  if (fs.existsSync(COMPILED)) {
    const built = fs.statSync(COMPILED).mtimeMs;
    if (SOURCES.every((source) => newestChange(source) <= built)) return ['--enable-source-maps', COMPILED];
    if (!warned) console.warn('packages/server/dist is older than the sources: running the server from TypeScript');
  } else if (!warned) {
    console.warn('packages/server/dist/main.js is missing (`npm run build`): running the server from TypeScript');
  }
  warned = true;
  return ['--import', 'tsx', 'packages/server/src/main.ts'];
}
