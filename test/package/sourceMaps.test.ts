import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The files npm would publish (`npm pack --dry-run`, nothing written) and what their source maps
// point at: a map that names a source the package does not ship (src/ is not in "files") is
// useless to a debugger and makes bundlers' source-map loaders warn. Reads the built dist/.
const root = fileURLToPath(new URL('../..', import.meta.url));
const shipped: string[] = (
  JSON.parse(
    execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8' }),
  ) as Array<{ files: Array<{ path: string }> }>
)[0]!.files.map((f) => f.path);
const inPackage = new Set(shipped);

describe('source maps in the published package', () => {
  it('every shipped .map embeds its sources or points only at shipped files', () => {
    expect(shipped).toContain('dist/index.js');
    const broken: string[] = [];
    for (const path of shipped.filter((p) => p.endsWith('.map'))) {
      const map = JSON.parse(readFileSync(join(root, path), 'utf8')) as {
        sources: string[];
        sourcesContent?: Array<string | null>;
        sourceRoot?: string;
      };
      map.sources.forEach((source, i) => {
        const target = posix.normalize(posix.join(dirname(path), map.sourceRoot ?? '', source));
        if (typeof map.sourcesContent?.[i] !== 'string' && !inPackage.has(target)) broken.push(`${path} -> ${source}`);
      });
    }
    expect(broken).toEqual([]);
  });

  it('every sourceMappingURL of a shipped script names a shipped map', () => {
    const dangling: string[] = [];
    for (const path of shipped.filter((p) => /\.[cm]?js$/.test(p))) {
      const m = /\/\/# sourceMappingURL=(\S+)\s*$/.exec(readFileSync(join(root, path), 'utf8'));
      if (m && !m[1]!.startsWith('data:') && !inPackage.has(posix.join(dirname(path), m[1]!)))
        dangling.push(`${path} -> ${m[1]}`);
    }
    expect(dangling).toEqual([]);
  });
});
