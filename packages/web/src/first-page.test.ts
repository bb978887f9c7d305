import { describe, expect, it } from 'vitest';

/*
 * The sign-in page stays light (issue 16, ≤ 300 KB gzip; `bench/first-page.ts` prints the built figure): what
 * the entry and the login page import statically must not reach the signed-in shell, the realtime client or
 * the charts. Read from the sources' import statements, so a stray static import fails here without a build.
 */
const sources = import.meta.glob<string>('./**/*.{ts,tsx}', { query: '?raw', import: 'default', eager: true });

const STATIC_IMPORT = /^\s*(?:import|export)\s+(type\s+)?(?:([^'";]*?)\s+from\s+)?['"]([^'"]+)['"]/gm;

function resolve(from: string, specifier: string): string | undefined {
  const parts = from.split('/').slice(0, -1);
  for (const part of specifier.split('/')) {
    if (part === '..') parts.pop();
    else if (part !== '.') parts.push(part);
  }
  const base = parts.join('/');
  return [`${base}.ts`, `${base}.tsx`, `${base}/index.ts`, `${base}/index.tsx`, base].find((file) => file in sources);
}

/** Files and packages loaded before `start` runs: its static imports, transitively (type-only ones left out). */
function staticClosure(start: string) {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    for (const [, typeOnly, clause, specifier] of sources[file].matchAll(STATIC_IMPORT)) {
      if (typeOnly) continue;
      const names = /^\{([^}]*)\}$/.exec(clause?.trim() ?? '')?.[1];
      if (names?.split(',').every((name) => !name.trim() || name.trim().startsWith('type '))) continue;
      if (specifier.startsWith('.')) {
        const target = resolve(file, specifier);
        if (target) visit(target);
      } else {
        packages.add(specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0]);
      }
    }
  };
  visit(start);
  return { files, packages };
}

describe('first page', () => {
  it.each(['./main.tsx', './pages/login/index.tsx'])(
    '%s reaches neither the app shell nor realtime nor charts',
    (start) => {
      const { files, packages } = staticClosure(start);
      expect(files.size).toBeGreaterThan(start === './main.tsx' ? 5 : 2);
      expect(
        [...files].filter((file) => /\/layouts\/(app-shell|main-layout|project-layout|crf-layout)/.test(file)),
      ).toEqual([]);
      expect([...files].filter((file) => file.includes('/realtime/'))).toEqual([]);
      expect(
        [...packages].filter((name) => ['socket.io-client', 'echarts', 'echarts-for-react'].includes(name)),
      ).toEqual([]);
    },
  );

  // The strings are split by area (locales/<area>.zh-CN.ts); the first page carries only zh-CN.ts's T
  // (product title, route titles, login form), each other area arrives with the lazy chunk that uses it.
  it.each(['./main.tsx', './pages/login/index.tsx'])('%s reaches no string table but locales/zh-CN.ts', (start) => {
    const { files } = staticClosure(start);
    expect([...files].filter((file) => file.includes('/locales/'))).toEqual(['./locales/zh-CN.ts']);
  });

  it('locales/zh-CN.ts imports nothing, so neither the audit action names of @ecrf/core nor another area', () => {
    expect([...sources['./locales/zh-CN.ts'].matchAll(STATIC_IMPORT)]).toEqual([]);
    expect(sources['./locales/zh-CN.ts']).not.toMatch(/AUDIT_ACTION_NAMES|\bimport\(/);
  });
});
