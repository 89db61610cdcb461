import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writePlotFiles } from '../../src/plot/files.js';
import { decodePng, inkStats } from './png.js';

const svg = (w: number, h: number) =>
  `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}"><rect width="${w}" height="${h}" fill="white"/>` +
  `<circle cx="${w / 2}" cy="${h / 2}" r="${h / 3}" fill="#4c78a8"/></svg>`;

describe('writePlotFiles', () => {
  const dirs: string[] = [];
  const fresh = () => {
    const d = mkdtempSync(join(tmpdir(), 'ordergap-plot-'));
    dirs.push(d);
    return d;
  };
  afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

  it('writes name.svg and name.png (creating the folder), PNG at scale 2 and not blank', () => {
    const dir = join(fresh(), 'a', 'b');
    const out = writePlotFiles(dir, [
      { name: 'one', svg: svg(100, 50) },
      { name: 'two', svg: svg(30, 20) },
    ]);
    expect(readdirSync(dir).sort()).toEqual(['one.png', 'one.svg', 'two.png', 'two.svg']);
    expect(readFileSync(join(dir, 'one.svg'), 'utf8')).toBe(svg(100, 50));
    const png = decodePng(readFileSync(join(dir, 'one.png')));
    expect([png.width, png.height]).toEqual([200, 100]);
    expect(out[0]).toMatchObject({ name: 'one', width: 200, height: 100 });
    expect(inkStats(png.rgba).inkFraction).toBeGreaterThan(0.1);
  });

  it('writes nothing when any plot is bad', () => {
    const dir = join(fresh(), 'out');
    expect(() =>
      writePlotFiles(dir, [
        { name: 'good', svg: svg(10, 10) },
        { name: 'bad', svg: '<svg xmlns="http://www.w3.org/2000/svg"><g></svg>' },
      ]),
    ).toThrow(/resvg could not render it/);
    expect(existsSync(dir)).toBe(false);
    expect(() => writePlotFiles(dir, [{ name: '../escape', svg: svg(10, 10) }])).toThrow(
      /^plots\[0\]\.name = "\.\.\/escape"/,
    );
    expect(() =>
      writePlotFiles(dir, [
        { name: 'x', svg: svg(10, 10) },
        { name: 'x', svg: svg(10, 10) },
      ]),
    ).toThrow(/^plots\[1\]\.name = "x": is used twice/);
    expect(existsSync(dir)).toBe(false);
  });

  it("writes nothing when a later plot's file name is taken by a folder", () => {
    const dir = fresh();
    mkdirSync(join(dir, 'second.png'));
    expect(() =>
      writePlotFiles(dir, [
        { name: 'first', svg: svg(10, 10) },
        { name: 'second', svg: svg(10, 10) },
      ]),
    ).toThrow(/^dir = ".*": holds second\.png, which is not a file/);
    expect(readdirSync(dir)).toEqual(['second.png']);
  });

  it('refuses a path that is a file', () => {
    const file = join(fresh(), 'f');
    writeFileSync(file, 'x');
    expect(() => writePlotFiles(file, [{ name: 'p', svg: svg(10, 10) }])).toThrow(
      /^dir = ".*": exists and is not a folder/,
    );
    expect(() => writePlotFiles('', [])).toThrow(/^dir = "": must be a folder path/);
  });
});
