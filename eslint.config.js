// ESLint flat config: type-checked typescript-eslint plus the layout rules of STYLE.md.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const restrict = (patterns) => ({
  'no-restricted-imports': ['error', { patterns }],
});

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'bench/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: {
          allowDefaultProject: [
            'eslint.config.js',
            'scripts/*.mjs',
            'test/fixtures/*.mjs',
          ],
        },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      'no-console': 'error',
      'no-restricted-syntax': [
        'error',
        {
          selector:
            'ImportDeclaration[source.value=/^(fs|path|os|child_process|crypto|util|events|stream|url|string_decoder|readline|process|timers)(\\/.*)?$/]',
          message: 'Use the node: protocol for built-in modules.',
        },
      ],
    },
  },
  {
    files: ['src/**/*.ts', 'src/**/*.tsx'],
    ignores: ['src/tmux/**', 'src/backends/**', 'src/hooks/**'],
    rules: restrict([
      {
        group: ['execa'],
        message: 'execa is only used in tmux/, backends/ and hooks/.',
      },
      {
        group: ['ink', 'ink/*', 'react', 'react/*'],
        message: 'ink/react only in ui/.',
      },
      {
        group: ['chokidar'],
        message: 'chokidar only in bridge/tail.ts and backends/file.ts.',
      },
    ]),
  },
  {
    files: ['src/ui/**'],
    rules: restrict([
      { group: ['execa'], message: 'ui/ never runs processes.' },
      {
        group: ['chokidar'],
        message: 'chokidar only in bridge/tail.ts and backends/file.ts.',
      },
    ]),
  },
  {
    files: ['src/bridge/tail.ts', 'src/backends/file.ts'],
    rules: restrict([
      {
        group: ['ink', 'ink/*', 'react', 'react/*'],
        message: 'ink/react only in ui/.',
      },
    ]),
  },
  {
    files: ['src/cli/output.ts', 'src/session/demo/**'],
    rules: { 'no-console': 'off' },
  },
  {
    // Plain Node scripts (fake agents, bench, conformance helpers): linted
    // without type information, with Node's globals.
    files: ['**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      parserOptions: { projectService: false },
      globals: Object.fromEntries(
        [
          'process',
          'console',
          'Buffer',
          'URL',
          'setTimeout',
          'clearTimeout',
          'setInterval',
          'clearInterval',
          'setImmediate',
          'performance',
        ].map((name) => [name, 'readonly']),
      ),
    },
  },
  {
    files: ['test/**', 'scripts/**', '*.config.*'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      'no-console': 'off',
    },
  },
);
