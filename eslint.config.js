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
