// Empties dist/ before tsc writes it: the package ships dist/ whole ("files"), so output left by
// an earlier build (a module since removed, a source map since switched off) must not linger.
import { rmSync } from 'node:fs';

rmSync(new URL('../dist/', import.meta.url), { recursive: true, force: true });
