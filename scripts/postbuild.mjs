// Makes the CLI entry executable after tsc (npm links it as the `ordergap` bin).
import { chmodSync, existsSync } from 'node:fs';

const bin = new URL('../dist/cli/main.js', import.meta.url);
if (!existsSync(bin)) {
  console.error('postbuild: dist/cli/main.js is missing; did tsc run?');
  process.exit(1);
}
chmodSync(bin, 0o755);
