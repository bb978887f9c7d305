/**
 * The sign-in page's JavaScript, from the web build's manifest (`npm run build` writes
 * packages/web/dist/.vite/manifest.json): the entry chunk and every chunk it imports statically, plus the
 * login route's lazy chunk and its static imports, each gzipped as a server would send it. Target (issue 16):
 * ≤ 300 KB gzip. Prints figures, the largest chunks first; no thresholds. `WEB_DIST` names another build.
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

interface ManifestChunk {
  file: string;
  name?: string;
  src?: string;
  isEntry?: boolean;
  imports?: string[];
  dynamicImports?: string[];
  css?: string[];
}
type Manifest = Record<string, ManifestChunk>;

const ROOT = path.resolve(import.meta.dirname, '..');
const DIST = path.resolve(process.env.WEB_DIST ?? path.join(ROOT, 'packages', 'web', 'dist'));
const LOGIN_PAGE = 'src/pages/login/index.tsx';

/** The manifest keys a chunk needs before it runs: itself and its static imports, transitively. */
export function staticClosure(manifest: Manifest, key: string, into = new Set<string>()): Set<string> {
  if (into.has(key)) return into;
  into.add(key);
  for (const imported of manifest[key]?.imports ?? []) staticClosure(manifest, imported, into);
  return into;
}

/** What the browser loads to show /login: the entry's closure and the login page's. */
export function firstPageChunks(manifest: Manifest): Set<string> {
  const entry = Object.keys(manifest).find((key) => manifest[key].isEntry);
  if (!entry) throw new Error('the manifest names no entry');
  const keys = staticClosure(manifest, entry);
  if (manifest[LOGIN_PAGE]) staticClosure(manifest, LOGIN_PAGE, keys);
  return keys;
}

function main() {
  const manifestFile = path.join(DIST, '.vite', 'manifest.json');
  if (!fs.existsSync(manifestFile)) {
    console.log(`${manifestFile} is missing: run \`npm run build\` first`);
    return;
  }
  const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8')) as Manifest;
  if (!manifest[LOGIN_PAGE]) console.log(`${LOGIN_PAGE} has no chunk of its own: it is in the entry's`);
  const rows = [...firstPageChunks(manifest)].map((key) => {
    const data = fs.readFileSync(path.join(DIST, manifest[key].file));
    return { key, file: manifest[key].file, raw: data.length, gzip: zlib.gzipSync(data).length };
  });
  rows.sort((a, b) => b.gzip - a.gzip);
  const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
  const total = rows.reduce((sum, row) => sum + row.gzip, 0);
  const raw = rows.reduce((sum, row) => sum + row.raw, 0);
  console.log(
    `first page (sign-in) JavaScript: ${kb(total)} gzip (target ≤ 300 KB), ${kb(raw)} raw, in ${rows.length} chunks`,
  );
  for (const row of rows) console.log(`  ${kb(row.gzip).padStart(9)}  ${row.file}  (${row.key})`);
}

if (process.argv[1] === import.meta.filename) main();
