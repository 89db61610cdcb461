#!/usr/bin/env node
// The `ordergap` executable (package.json "bin"). All logic is in ./program.ts.
import { runCli } from './program.js';

runCli(process.argv).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    process.stderr.write(`ordergap: error: ${String(e)}\n`);
    process.exitCode = 1;
  },
);
