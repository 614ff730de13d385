#!/usr/bin/env node
// mock-idp command line: runs the CLI bundle, dist/cli.js (scripts/bundle-cli.js).
import module from 'node:module';

// Node's own cache of compiled code (Node ≥ 22.1) shortens a start; older Nodes compile as usual.
if (typeof module.enableCompileCache === 'function') module.enableCompileCache();

// Imported only now, so that its code goes through that cache.
const { main } = await import('../dist/cli.js');
const code = await main(process.argv.slice(2));
if (code !== undefined) process.exitCode = code;
