// ESLint flat config: type-checked typescript-eslint plus the layout rules of STYLE.md.
import path from 'node:path';
import js from '@eslint/js';
import importPlugin from 'eslint-plugin-import';
import tseslint from 'typescript-eslint';

// Processes are run with execa, and only in tmux/, backends/ and hooks/
// (and remote/, the one place that runs ssh).
const NO_CHILD_PROCESS = {
  group: ['node:child_process'],
  message:
    'run processes with execa, in tmux/, backends/, hooks/ or remote/ (STYLE.md).',
};
const restrict = (patterns) => ({
  'no-restricted-imports': [
    'error',
    { patterns: [...patterns, NO_CHILD_PROCESS] },
  ],
});

// The layers of src/: which folders each folder may import from (besides
// itself, errors.ts and log/). Lower layers come first; nothing imports
// upwards, so folders have no cycles either. Type-only imports may cross
// layers (they are gone at run time) but make no module cycle
// (test/lint/cycles.test.ts). docs/architecture.md explains each.
const LAYERS = {
  home: [], // a macs home's paths and private files
  config: [],
  protocol: [],
  tmux: [],
  events: ['home'],
  screen: ['config', 'protocol'],
  usage: ['home', 'config'], // what agents' model calls used (docs/usage.md)
  state: ['home', 'events', 'protocol', 'config', 'usage'],
  hooks: ['home', 'config', 'events', 'protocol', 'state', 'tmux', 'usage'],
  // typing into a pane safely: below the bridge, the backends and the CLI
  typist: ['config', 'protocol', 'tmux'],
  backends: [
    ...['home', 'config', 'events', 'protocol', 'screen', 'state', 'tmux'],
    ...['typist', 'usage'],
  ],
  bridge: [
    ...['home', 'config', 'events', 'protocol', 'screen', 'state', 'tmux'],
    ...['typist', 'hooks', 'backends', 'usage'],
  ],
  session: [
    ...['home', 'config', 'events', 'protocol', 'screen', 'state', 'tmux'],
    ...['typist', 'hooks', 'backends', 'bridge', 'usage'],
  ],
  // Other hosts over ssh: the ssh runner, the links, the fleet at the hub.
  remote: ['home', 'config', 'events', 'protocol', 'state'],
  // What a person or the controller does (send, answer, decide, dismiss,
  // pause, follow events, forward to a host), once, below the doors.
  operations: [
    ...['home', 'config', 'events', 'protocol', 'screen', 'state', 'tmux'],
    ...['typist', 'hooks', 'backends', 'bridge', 'usage', 'session', 'remote'],
  ],
  // The doors: mcp/, ui/, web/ (and cli/, which may import anything).
  mcp: [
    ...['home', 'config', 'events', 'protocol', 'screen', 'state', 'tmux'],
    ...['typist', 'hooks', 'backends', 'bridge', 'session', 'remote', 'usage'],
    'operations',
  ],
  ui: ['home', 'config', 'events', 'protocol', 'state', 'usage', 'operations'],
  web: [
    ...['home', 'config', 'events', 'protocol', 'screen', 'state', 'tmux'],
    ...['remote', 'operations'],
  ],
};
const FOLDERS = [...Object.keys(LAYERS), 'cli'];

// Doors are thin and never import each other (STYLE.md), not even a type:
// what two doors share lives in operations/. (cli/ starts the other doors:
// `macs mcp`, `macs web`.)
const DOORS = { mcp: ['cli', 'web', 'ui'], web: ['cli', 'mcp', 'ui'] };
function doorGroup(folder, banned) {
  return {
    group: banned.flatMap((f) => [`../${f}/*`, `../../${f}/*`]),
    message: `src/${folder}/ is a door and imports no other door (${banned.map((f) => `${f}/`).join(', ')}), not even a type; share it through operations/ (DOORS in eslint.config.js).`,
  };
}

// The rooms of src/bridge/, along a request's path (docs/architecture.md):
// which other rooms each room's modules may import values from. No room
// imports the supervisor (it wires them, one factory per room); rooms
// hand each other values through it, or share types (a type-only import
// may cross, as long as it makes no cycle: test/lint/cycles.test.ts).
const ROOMS = {
  requests: [], // where a request is recorded: raise, the ledger's steps
  route: [], // the answerers, tried in order
  answers: ['requests'], // an answer taken once, typed, each step recorded
  approvals: ['requests'], // raised through requests/raise.ts
  // The hook link hands on what a hook left as a value (HookSeen).
  agent: [],
  intake: ['agent'], // its reader settles with the state readings
  usage: ['route'], // a person called through route/attention.ts
};
// One process for many agents: runs a supervisor per agent.
const FLEET = 'fleet';
const ROOM_NAMES = [...Object.keys(ROOMS), FLEET];

/** The patterns a folder of src/ may not import (LAYERS). */
function layerGroup(folder, allowed) {
  // A door's doors are refused by doorGroup, type imports too.
  const doors = DOORS[folder] ?? [];
  const banned = FOLDERS.filter(
    (f) => f !== folder && !allowed.includes(f) && !doors.includes(f),
  );
  return {
    group: banned.flatMap((f) => [`../${f}/*`, `../../${f}/*`]),
    allowTypeImports: true,
    message: `src/${folder}/ may import only from ${['errors.ts', 'log/', ...allowed.map((f) => `${f}/`)].join(', ')} (LAYERS in eslint.config.js).`,
  };
}
const restrictImports = (patterns) => ({
  '@typescript-eslint/no-restricted-imports': ['error', { patterns }],
});
const layerRules = Object.entries(LAYERS).map(([folder, allowed]) => ({
  files: [`src/${folder}/**`],
  rules: restrictImports(
    [
      layerGroup(folder, allowed),
      ...(DOORS[folder] ? [doorGroup(folder, DOORS[folder])] : []),
    ].filter((g) => g.group.length > 0),
  ),
}));
// A room's files keep the bridge's layer (its patterns cover both depths)
// and may not import the rooms outside theirs.
const bridgeLayer = layerGroup('bridge', LAYERS.bridge);
const roomRules = Object.entries(ROOMS).map(([room, allowed]) => {
  const banned = ROOM_NAMES.filter((r) => r !== room && !allowed.includes(r));
  return {
    files: [`src/bridge/${room}/**`],
    rules: restrictImports([
      bridgeLayer,
      {
        group: [...banned.map((r) => `../${r}/*`), '../supervisor.js'],
        allowTypeImports: true,
        message: `src/bridge/${room}/ may import values only from the rooms ${allowed.map((r) => `${r}/`).join(', ') || '(none)'} and the bridge's shared modules, never the supervisor (ROOMS in eslint.config.js).`,
      },
    ]),
  };
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
    // No import cycles in src/. import/no-cycle skips type-only imports;
    // test/lint/cycles.test.ts counts them too. Our imports name `./x.js`
    // for `x.ts`, which scripts/eslint/ts-resolver.cjs resolves.
    files: ['src/**/*.ts', 'src/**/*.tsx'],
    plugins: { import: importPlugin },
    settings: {
      'import/extensions': ['.ts', '.tsx'],
      'import/parsers': { '@typescript-eslint/parser': ['.ts', '.tsx'] },
      'import/resolver': {
        [path.join(import.meta.dirname, 'scripts/eslint/ts-resolver.cjs')]: {},
      },
    },
    rules: {
      'import/no-cycle': ['error', { ignoreExternal: true }],
      // A module small enough to read in one sitting (docs/architecture.md).
      'max-lines': [
        'error',
        { max: 400, skipBlankLines: false, skipComments: false },
      ],
    },
  },
  ...layerRules,
  ...roomRules,
  {
    // The command line is a door: parse flags, call one operation, print
    // (docs/architecture.md). A longer function there is work that belongs
    // in the room that owns it.
    files: ['src/cli/**/*.ts'],
    rules: {
      'max-lines-per-function': [
        'error',
        { max: 60, skipBlankLines: false, skipComments: false, IIFEs: true },
      ],
    },
  },
  {
    files: ['src/**/*.ts', 'src/**/*.tsx'],
    ignores: [
      'src/tmux/**',
      'src/backends/**',
      'src/hooks/**',
      'src/remote/**',
    ],
    rules: restrict([
      {
        group: ['execa'],
        message: 'execa is only used in tmux/, backends/, hooks/ and remote/.',
      },
      {
        group: ['ink', 'ink/*', 'react', 'react/*'],
        message: 'ink/react only in ui/.',
      },
      {
        group: ['chokidar'],
        message: 'chokidar only in bridge/intake/tail.ts and backends/file.ts.',
      },
    ]),
  },
  {
    files: ['src/ui/**'],
    rules: restrict([
      { group: ['execa'], message: 'ui/ never runs processes.' },
      {
        group: ['chokidar'],
        message: 'chokidar only in bridge/intake/tail.ts and backends/file.ts.',
      },
    ]),
  },
  {
    files: ['src/tmux/**', 'src/backends/**', 'src/hooks/**', 'src/remote/**'],
    rules: restrict([
      {
        group: ['ink', 'ink/*', 'react', 'react/*'],
        message: 'ink/react only in ui/.',
      },
    ]),
  },
  {
    files: ['src/bridge/intake/tail.ts', 'src/backends/file.ts'],
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
    files: ['**/*.mjs', '**/*.cjs'],
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
          'require',
          'exports',
        ].map((name) => [name, 'readonly']),
      ),
    },
  },
  {
    // CommonJS on purpose: eslint-plugin-import loads resolvers with require.
    files: ['**/*.cjs'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
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
