#!/usr/bin/env -S node --max-semi-space-size=2 --max-old-space-size=1024
// mock-idp command line: the whole CLI is bundled in dist/cli.mjs (see scripts/bundle-cli.js).
// Heap flags (npm start and the image pass them too): token requests make short-lived garbage, and V8's
// defaults (16 MB semi-spaces, an old space sized to the machine's memory) let peak RSS under load reach
// ~150 MB; with these it stays ~90 MB at the same throughput (npm run bench). 1 GB still holds millions
// of sessions.
import { main } from '../dist/cli.mjs';

const code = await main(process.argv.slice(2));
if (code !== undefined) process.exitCode = code;
