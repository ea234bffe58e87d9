import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';
import reactHooks from 'eslint-plugin-react-hooks';
import importPlugin from 'eslint-plugin-import';

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', 'data/**', 'test-output/**', 'packages/sdk/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-empty-object-type': 'off',
    },
  },
  {
    files: ['packages/console/src/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'warn',
      // antd's static toasts draw a stack of their own over the app's: every toast goes through toasts().
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'antd',
              importNames: ['message', 'notification'],
              message: 'Toast through toasts() from api/toasts.ts: the console has one toast stack.',
            },
          ],
        },
      ],
    },
  },
  {
    // A reader takes in a file or a function at once: past these sizes, split it into parts with names of their own.
    files: ['packages/*/src/**/*.{ts,tsx}'],
    rules: {
      'max-lines': ['error', { max: 400, skipBlankLines: true, skipComments: true }],
      'max-lines-per-function': ['error', { max: 150, skipBlankLines: true, skipComments: true }],
    },
  },
  {
    // Tests and journeys too stay readable at once; their describe blocks are long by nature, so only the file counts.
    files: ['packages/*/test/**/*.ts', 'e2e/**/*.ts'],
    rules: { 'max-lines': ['error', { max: 400, skipBlankLines: true, skipComments: true }] },
  },
  {
    // being split; the rule applies once they are
    files: [
      'packages/console/src/features/schedules/components/ScheduleFormModal.tsx',
      'packages/console/src/features/spiders/tabs/OverviewTab.tsx',
      'packages/console/src/features/tasks/components/RunDialog.tsx',
      'packages/console/src/features/tasks/components/TaskTable.tsx',
      'packages/console/src/features/tasks/TaskListPage.tsx',
    ],
    rules: { 'max-lines-per-function': 'off' },
  },
  {
    files: ['packages/console/src/api/toasts.ts'],
    rules: { 'no-restricted-imports': 'off' },
  },
  {
    // Floating promises lose errors silently; the server and node service must never have them.
    files: ['packages/server/src/**/*.ts', 'packages/node/src/**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
    },
  },
  {
    // No import cycles: a module's dependencies load before it, so start-up order never depends on who imports first.
    files: ['packages/{server,node,shared,cli}/src/**/*.ts'],
    plugins: { import: importPlugin },
    settings: {
      'import/extensions': ['.ts', '.js'],
      'import/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import/resolver': { node: { extensions: ['.ts', '.js'] } },
    },
    rules: { 'import/no-cycle': ['error', { ignoreExternal: true }] },
  },
);
