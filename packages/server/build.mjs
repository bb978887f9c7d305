// Compiles the server into dist/ (docs/decisions.md, "The server runs compiled JavaScript"): our own code and
// @ecrf/core bundled into one ES module per entry, every package from node_modules left to Node to load. Each
// entry sits directly in dist/, at the same depth below packages/server as src/main.ts, so paths taken from
// import.meta.url (the package folder, the repository root, the built web app) mean the same in both.
import { readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { build } from 'esbuild';

const here = import.meta.dirname;
const outdir = path.join(here, 'dist');

/** Bare imports stay imports, except our own workspace packages, which are TypeScript sources to compile. */
const externalPackages = {
  name: 'external-packages',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith('@ecrf/') || path.isAbsolute(args.path)) return undefined;
      return { path: args.path, external: true };
    });
  },
};

const started = Date.now();
const result = await build({
  absWorkingDir: here,
  entryPoints: {
    main: 'src/main.ts',
    'audit-verify': 'src/audit-verify.ts',
    // Workers loaded by file name from their pools (see their WORKER constants): piscina threads for the imports, a
    // child process for recognition (ocr.pool.ts, so a runaway image is killed with all its memory).
    'crf-import.worker': 'src/modules/study/crf-import.worker.ts',
    'data-import.worker': 'src/modules/data-import/data-import.worker.ts',
    'recognition.worker': 'src/modules/recognition/recognition.worker.ts',
  },
  outdir,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: true,
  // Stack traces and the logs keep readable function names.
  keepNames: true,
  plugins: [externalPackages],
  logLevel: 'warning',
  metafile: true,
});
// Files are replaced in place and only leftovers of removed entries deleted afterwards: a server starting during a
// build (another checkout's tests) never finds dist/ empty.
const written = new Set(Object.keys(result.metafile.outputs).map((file) => path.resolve(here, file)));
for (const file of readdirSync(outdir)) {
  if (!written.has(path.join(outdir, file))) rmSync(path.join(outdir, file), { recursive: true, force: true });
}
process.stdout.write(
  `server compiled into ${path.relative(process.cwd(), outdir) || '.'} in ${Date.now() - started} ms\n`,
);
