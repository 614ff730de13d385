// Lint rules: typescript-eslint's type-aware recommended set over src/ and test/.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/', 'bench/results/', 'scratch/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.js'],
    languageOptions: { globals: globals.node },
  },
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-restricted-properties': [
        'error',
        { object: 'Date', property: 'now', message: 'Read time from the Clock (src/clock.ts).' },
        { object: 'Math', property: 'random', message: 'Take random values from ids (src/ids.ts).' },
        {
          object: 'performance',
          property: 'now',
          message: 'Measure durations with Clock.elapsedMs (src/clock.ts).',
        },
      ],
    },
  },
  {
    files: ['src/clock.ts', 'test/**', 'bench/**', 'scripts/**'],
    rules: { 'no-restricted-properties': 'off' },
  },
);
