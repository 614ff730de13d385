#!/usr/bin/env node
// mock-idp command line: the whole CLI is bundled in dist/cli.mjs (see scripts/bundle-cli.js).
import { main } from '../dist/cli.mjs';

const code = await main(process.argv.slice(2));
if (code !== undefined) process.exitCode = code;
