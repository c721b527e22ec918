// Lint: typescript-eslint's recommended rules plus the layering rule of DESIGN.md, so a wrong
// import fails `npm test` rather than review (scripts/check-layers.mjs repeats it without eslint).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const nodeBuiltins = ['node:*', 'fs', 'fs/*', 'path', 'os', 'child_process', 'net', 'http', 'https', 'crypto', 'events', 'stream', 'util', 'url', 'worker_threads', 'tty', 'readline', 'dgram', 'dns', 'zlib'];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'native/**/build/**', 'test-output/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', global: 'readonly', console: 'readonly', Buffer: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', setImmediate: 'readonly', clearImmediate: 'readonly', URL: 'readonly', __dirname: 'readonly', require: 'readonly', module: 'writable', performance: 'readonly', queueMicrotask: 'readonly', TextDecoder: 'readonly', TextEncoder: 'readonly', structuredClone: 'readonly', AbortController: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-require-imports': 'off',
    },
  },
  {
    files: ['src/protocol/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [
        { group: nodeBuiltins, message: 'src/protocol is pure: no Node modules, no I/O.' },
        { group: ['node-pty', '@xterm/*', 'chokidar', 'node-notifier', '@nodegui/*', '../terminal/*', '../app/*', '../terminal', '../app'], message: 'src/protocol imports only zod and itself.' },
      ] }],
    },
  },
  {
    files: ['src/terminal/**/*.ts', 'src/app/host/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [
        { group: ['@nodegui/*'], message: 'Only src/app/ui and src/app/platform touch Qt.' },
        { group: ['../ui/*', '../ui', '../../app/*'], message: 'Imports only point left: protocol ← terminal ← host ← ui.' },
      ] }],
    },
  },
);
