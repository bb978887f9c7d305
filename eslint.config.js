import { builtinModules } from 'node:module';
import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

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
  {
    files: ['packages/server/src/modules/**/*.routes.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['drizzle-orm', 'drizzle-orm/*', '**/db/client*', '**/db/schema*', '**/db/schema/**'],
              message:
                'A route file declares the HTTP shape, the guards and one call into a service; the database belongs to the service.',
            },
          ],
        },
      ],
    },
  },
  {
    // http/ may import services, never the other way round: what a service needs that is not about a request
    // (AppError, CurrentUser, PageRequest, StudyAccess, FileStorage) is in src/shared/.
    files: ['packages/server/src/modules/**/*.service.ts', 'packages/server/src/shared/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/http/*', '**/http/**'],
              message:
                'Services and shared code do not depend on the HTTP layer: AppError, CurrentUser, PageRequest and study access are in src/shared/.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.config.ts', 'vitest.config.ts'],
    ...tseslint.configs.disableTypeChecked,
  },
);
