// ESLint: typescript-eslint's type-aware recommended rules over every TypeScript file, and the
// plain recommended rules over the JavaScript ones (examples, fixtures, configs). Formatting is
// Prettier's (.prettierrc.json); eslint-config-prettier turns off the rules it owns.
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'data*/**', 'coverage/**', 'backups/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // Heavy modules (the OpenTelemetry SDK, a service's core) are required on first use, inside the
      // function that needs them, so a process that does not run them never loads them.
      '@typescript-eslint/no-require-imports': 'off',
      // A method of a service interface is `async` even when one implementation has nothing to await:
      // its errors then reach the caller as rejections, never as synchronous throws.
      '@typescript-eslint/require-await': 'off',
      // The default allow list names URL and URLSearchParams from TypeScript's lib; Node's types declare the
      // global ones in its `url` module, which the default does not match. Both print as a URL does.
      '@typescript-eslint/restrict-template-expressions': [
        'error',
        {
          allow: [
            { name: ['Error', 'URL', 'URLSearchParams'], from: 'lib' },
            { name: ['URL', 'URLSearchParams'], from: 'package', package: 'url' },
          ],
        },
      ],
      // A `let` read by a closure written before its one assignment (bin/start.ts: readiness asks the
      // request tracker made after the app) stays a `let`: a `const` there would be read before it exists.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      // As only-throw-error by default: passing on a value caught or an abort's reason (typed unknown or
      // any) keeps it as it came; only a new rejection with something other than an Error is refused.
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingAny: true, allowThrowingUnknown: true }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
    },
  },
  {
    // Tests and benchmarks read other programs' JSON answers, typed as what they are: unknown wire data.
    files: ['test/**', 'bench/**'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/unbound-method': 'off',
      // They stringify what sockets and child processes hand them (ws's RawData, a Buffer or its chunks).
      '@typescript-eslint/no-base-to-string': 'off',
    },
  },
  {
    files: ['**/*.{js,mjs,cjs}'],
    ...tseslint.configs.disableTypeChecked,
    // Plain JavaScript is linted without type information: the project service (tsconfig.json) does
    // not hold these files, so disableTypeChecked's parser options are kept next to the globals.
    languageOptions: { ...tseslint.configs.disableTypeChecked.languageOptions, globals: { ...globals.node } },
  },
  prettier,
);
