// Prints "N passed, N failed" (the last line CI reads) from vitest JSON reports, adding the
// counts of other checks given first (the notebooks: passed, failed).
// Usage: node .ci/summarize.mjs EXTRA_PASSED EXTRA_FAILED REPORT.json [REPORT.json ...]
// A missing report means its test run did not finish: one failure. A test file that fails to
// load has no failed *tests* but a failed *suite*: count it as one failure so a broken import
// can never look green. Exits 1 on any failure or if nothing ran.
import { existsSync, readFileSync } from 'node:fs';

const extraPassed = Number(process.argv[2] ?? 0) || 0;
const extraFailed = Number(process.argv[3] ?? 0) || 0;
const files = process.argv.slice(4);
let passed = extraPassed;
let failed = extraFailed;
for (const file of files) {
  if (!existsSync(file)) {
    console.log(`test report ${file} missing: that test run did not finish`);
    failed++;
    continue;
  }
  const r = JSON.parse(readFileSync(file, 'utf8'));
  const brokenFiles = (r.testResults ?? []).filter(
    (f) => f.status === 'failed' && (f.assertionResults ?? []).every((a) => a.status !== 'failed'),
  ).length;
  passed += r.numPassedTests ?? 0;
  failed += (r.numFailedTests ?? 0) + brokenFiles;
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
