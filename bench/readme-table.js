// `node bench/readme-table.js [results.json]`: prints the README's Performance tables (markdown) from a bench run's
// results (default bench/results/latest.json; bench/results/speed.json after `npm run bench -- --speed`).
import { readFileSync } from 'node:fs';
import { markdown } from './lib/goals.js';

const file = process.argv[2] ?? new URL('./results/latest.json', import.meta.url);
console.log(markdown(JSON.parse(readFileSync(file, 'utf8'))));
