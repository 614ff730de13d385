#!/usr/bin/env node
// mock-idp command line: the whole CLI lives in dist/cli.
import { runCli } from '../dist/cli/program.js';

const code = await runCli(process.argv.slice(2));
if (code !== undefined) process.exitCode = code;
