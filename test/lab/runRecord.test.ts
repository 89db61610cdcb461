import { mkdtemp, readFile, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeFileAtomic } from '../../src/util/atomicWrite.js';
import { userExtractor } from '../../src/lab/extractors.js';
import { replaySamples } from '../../src/lab/replay.js';
import { loadRunRecord, makeRunRecord, replayRunRecord, saveRunRecord } from '../../src/lab/runRecord.js';
import { loadSamples, parseSamples } from '../../src/lab/samples.js';

const EXAMPLE = new URL('../../examples/samples/synthetic.jsonl', import.meta.url).pathname;

describe('run records', () => {
  it('save → load → replay gives identical figures', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ordergap-rec-'));
    const samples = await loadSamples(EXAMPLE);
    const result = replaySamples(samples, {
      rules: [
        { name: 'order-gap', params: { epsilon: 0.05, window: 3 } },
        { name: 'plurality', params: { window: 5 } },
      ],
      repeats: 2,
      seed: 5,
    });
    const rec = await makeRunRecord(result);
    expect(rec.packageVersion).toBe(
      (JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string })
        .version,
    );
    expect(rec.taskSet.sha256).toBe(samples.sha256);
    const path = join(dir, 'run.json');
    await saveRunRecord(path, rec);
    expect(await readdir(dir)).toEqual(['run.json']); // no temporary file left behind
    const loaded = await loadRunRecord(path);
    const again = await replayRunRecord(loaded, samples);
    expect(again.differences).toEqual([]);
    expect(again.identical).toBe(true);
    // the same record saved by an editor that writes a UTF-8 byte-order mark loads the same
    const bom = join(dir, 'bom.json');
    await writeFile(bom, '\uFEFF' + (await readFile(path, 'utf8')));
    expect(await loadRunRecord(bom)).toEqual(loaded);
  });

  it('a tampered record is reported as different, not silently accepted', async () => {
    const samples = await loadSamples(EXAMPLE);
    const rec = await makeRunRecord(replaySamples(samples, { rules: [], repeats: 1, seed: 0 }));
    const tampered = JSON.parse(JSON.stringify(rec)) as typeof rec;
    (tampered.summary as { pairedUnits: number }).pairedUnits += 1;
    const r = await replayRunRecord(tampered, samples);
    expect(r.identical).toBe(false);
    expect(r.differences).toEqual(['summary']);
    const items = JSON.parse(JSON.stringify(rec)) as { taskSet: { items: number } };
    items.taskSet.items = 999;
    expect((await replayRunRecord(items as typeof rec, samples)).differences).toEqual(['taskSet']);
  });

  it('refuses another task set or another extractor', async () => {
    const samples = await loadSamples(EXAMPLE);
    const rec = await makeRunRecord(replaySamples(samples, { rules: [], repeats: 1 }));
    const other = parseSamples('{"question":"q","answer":"a","generated_answer":["the answer is a"]}', 'o');
    await expect(replayRunRecord(rec, other)).rejects.toThrow(/^samples = "o": sha256 .* differs from the record's/);
    await expect(
      replayRunRecord(
        rec,
        samples,
        userExtractor('mine', (s) => s),
      ),
    ).rejects.toThrow(/^extractor = "mine": differs from the record's "answer-is"/);
  });

  it('load errors name the field', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ordergap-rec-'));
    const p = join(dir, 'bad.json');
    await writeFile(p, '{"format":"ordergap-run-record","formatVersion":2}');
    await expect(loadRunRecord(p)).rejects.toThrow(/bad.json: packageVersion = undefined: is missing/);
    // a record of the earlier layout (agreement counted units without a full vote) is refused, not misread
    await writeFile(p, '{"format":"ordergap-run-record","formatVersion":1}');
    await expect(loadRunRecord(p)).rejects.toThrow(/bad.json: formatVersion = 1: must be 2/);
    await writeFile(p, '{"format":"other"}');
    await expect(loadRunRecord(p)).rejects.toThrow(/bad.json: format = "other"/);
    await writeFile(p, '{');
    await expect(loadRunRecord(p)).rejects.toThrow(/is not valid JSON/);
    // the fields a replay reads are checked in form, not only for presence
    const samples = await loadSamples(EXAMPLE);
    const good = JSON.parse(JSON.stringify(await makeRunRecord(replaySamples(samples, { rules: [], repeats: 1 }))));
    const broken = async (edit: (r: Record<string, Record<string, unknown>>) => void, message: RegExp) => {
      const r = JSON.parse(JSON.stringify(good));
      edit(r);
      await writeFile(p, JSON.stringify(r));
      await expect(loadRunRecord(p)).rejects.toThrow(message);
    };
    await broken((r) => (r['rules'] = {}), /bad\.json: rules = an object: must be an array/);
    await broken((r) => delete r['taskSet']!['sha256'], /bad\.json: taskSet\.sha256 = undefined: must be a string/);
    await broken((r) => (r['config']!['rules'] = 3), /bad\.json: config\.rules = 3: must be an array/);
    await expect(loadRunRecord(join(dir, 'none.json'))).rejects.toThrow(/cannot be read \(ENOENT\)/);
  });

  it('atomic write: a failed write leaves the target untouched and no temporary file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ordergap-atomic-'));
    const target = join(dir, 'x.json');
    await writeFileAtomic(target, 'old');
    await expect(writeFileAtomic(join(dir, 'missing-dir', 'x.json'), 'new')).rejects.toThrow(/ENOENT/);
    await writeFileAtomic(target, 'new');
    expect(await readFile(target, 'utf8')).toBe('new');
    expect(await readdir(dir)).toEqual(['x.json']);
  });
});
