import { builtinModules } from 'node:module';
import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

/** Route files declare the HTTP shape, the guards and one call into a service; the database belongs to the service. */
const ROUTES_NO_DATABASE = {
  group: ['drizzle-orm', 'drizzle-orm/*', '**/db/client*', '**/db/schema*', '**/db/schema/**'],
  message:
    'A route file declares the HTTP shape, the guards and one call into a service; the database belongs to the service.',
};
const SERVICES_NO_HTTP = {
  group: ['**/http/*', '**/http/**'],
  message:
    'Services and shared code do not depend on the HTTP layer: AppError, CurrentUser, PageRequest and study access are in src/shared/.',
};
/**
 * A module is used by another through its services and the few entry points named here (docs/architecture.md,
 * "Module boundaries"); everything else in its folder is its own. A new entry point is a decision: add it here.
 */
const MODULE_ENTRY_POINTS = [
  '*.service.js',
  'audit-chain.js',
  'crf-definitions.js',
  'follow-forms.js',
  'form-write.js',
  'form-write-batch.js',
  'identifier-values.js',
  'job-queue.js',
  'lock-gate.js',
  'patient-portal.routes.js',
  'recognition-sources.js',
  'redcap-project.js',
  'redcap-records-export.js',
  'sanitize.js',
  'scheduler.js',
  'stored-value.js',
  'study-figures.js',
  'system-queries.subscriber.js',
];
const MODULE_INTERNALS = {
  group: ['../*/**', '!../../**', ...MODULE_ENTRY_POINTS.map((file) => `!../*/${file}`)],
  message:
    "Another module's internals: use its service or one of its entry points (MODULE_ENTRY_POINTS in eslint.config.js).",
};
const restrict = (...patterns) => ['error', { patterns }];
/** The web's layers: the CRF renderer, the API layer, layouts and shared components do not reach upwards. */
const webLayer = (files, forbidden, message) => ({
  files,
  ignores: ['**/*.test.ts', '**/*.test.tsx'],
  rules: {
    '@typescript-eslint/no-restricted-imports': restrict({
      group: forbidden.flatMap((layer) => [`**/${layer}`, `**/${layer}/**`]),
      message,
    }),
  },
});

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', '**/drizzle/**', 'data/**', 'e2e/.artifacts/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      curly: ['error', 'multi-line'],
      'no-eval': 'error',
      'no-new-func': 'error',
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['packages/web/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: { ...reactHooks.configs.recommended.rules },
  },
  // Import boundaries (docs/decisions.md, "Import boundaries").
  {
    files: ['packages/core/**/*.{ts,tsx}'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: builtinModules.map((name) => ({
            name,
            message: 'core is pure domain logic: no I/O, no node:* modules.',
          })),
          patterns: [
            { group: ['node:*'], message: 'core is pure domain logic: no I/O, no node:* modules.' },
            {
              group: [
                '@ecrf/server',
                '@ecrf/server/*',
                '@ecrf/web',
                '@ecrf/web/*',
                '**/server/src/**',
                '**/web/src/**',
              ],
              message: 'core is shared by server and web and imports neither.',
            },
          ],
        },
      ],
    },
  },
  // Server layers (docs/decisions.md, "Import boundaries"). Flat config keeps the last options of a rule, so each
  // file group names every pattern that applies to it.
  {
    // http/ may import services, never the other way round: what module code needs that is not about a request
    // (AppError, CurrentUser, PageRequest, StudyAccess, FileStorage) is in src/shared/. Route files and the
    // install files that hook a module into the app are the HTTP side.
    files: ['packages/server/src/modules/**/*.ts'],
    ignores: ['**/*.test.ts', '**/*.routes.ts', '**/*.install.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': restrict(MODULE_INTERNALS, SERVICES_NO_HTTP) },
  },
  {
    files: ['packages/server/src/modules/**/*.routes.ts'],
    ignores: ['**/*.test.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': restrict(MODULE_INTERNALS, ROUTES_NO_DATABASE) },
  },
  {
    files: ['packages/server/src/modules/**/*.install.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': restrict(MODULE_INTERNALS) },
  },
  {
    files: ['packages/server/src/shared/**/*.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': restrict(SERVICES_NO_HTTP) },
  },
  webLayer(
    ['packages/web/src/crf/**/*.{ts,tsx}'],
    ['api', 'pages', 'layouts'],
    'The CRF renderer draws a form from its definition and state: data comes in as props, never from api/ or a page.',
  ),
  webLayer(
    ['packages/web/src/api/**/*.{ts,tsx}'],
    ['components', 'pages', 'layouts', 'crf'],
    'The API layer talks to the server only; what it shares with the screens lives in @ecrf/core or api/.',
  ),
  webLayer(
    ['packages/web/src/layouts/**/*.{ts,tsx}'],
    ['pages', 'router', 'router.tsx'],
    'Layouts frame pages; a page is chosen by the router, never imported by a layout.',
  ),
  webLayer(
    ['packages/web/src/components/**/*.{ts,tsx}'],
    ['pages', 'layouts'],
    'Shared components are used by pages and layouts, not the other way round.',
  ),
  {
    files: ['**/*.js', '**/*.mjs', '**/*.config.ts', 'vitest.config.ts'],
    ...tseslint.configs.disableTypeChecked,
  },
);
