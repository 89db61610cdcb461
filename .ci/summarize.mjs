// Prints "N passed, N failed" from a vitest JSON report (the last line CI reads), adding the
// optional counts of other checks given as arguments (the notebooks: passed, failed).
// A test file that fails to load has no failed *tests* but a failed *suite*: count it as one
// failure so a broken import can never look green. Exits 1 on any failure or if nothing ran.
import { existsSync, readFileSync } from 'node:fs';

const file = process.argv[2] ?? '.ci/results.json';
if (!existsSync(file)) {
  console.log('test report missing: the test run did not finish');
  console.log('0 passed, 1 failed');
  process.exit(1);
}
const r = JSON.parse(readFileSync(file, 'utf8'));
const extraPassed = Number(process.argv[3] ?? 0) || 0;
const extraFailed = Number(process.argv[4] ?? 0) || 0;
const passed = (r.numPassedTests ?? 0) + extraPassed;
const failedTests = r.numFailedTests ?? 0;
const brokenFiles = (r.testResults ?? []).filter(
  (f) => f.status === 'failed' && (f.assertionResults ?? []).every((a) => a.status !== 'failed'),
).length;
const failed = failedTests + brokenFiles + extraFailed;
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
