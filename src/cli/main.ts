#!/usr/bin/env node
// The `ordergap` executable (package.json "bin"). All logic is in ./program.ts.
import { runCli } from './program.js';

// A failed write of the output (a full disk, /dev/full) is one line and exit 1, not an unhandled
// 'error' event with a stack; a reader that closed the pipe (`| head`) ends the command quietly.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code !== 'EPIPE') process.stderr.write(`ordergap: error: cannot write the output to stdout (${e.code})\n`);
  process.exit(e.code === 'EPIPE' ? (process.exitCode ?? 0) : 1);
});

runCli(process.argv).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    process.stderr.write(`ordergap: error: ${String(e)}\n`);
    process.exitCode = 1;
  },
);
