// Prints "N passed, N failed" from a vitest JSON report (the last line CI reads).
// Exits 1 if the report is missing, shows failures, or ran no test.
import { readFileSync, existsSync } from 'node:fs';

const file = process.argv[2] ?? '.ci/results.json';
if (!existsSync(file)) {
  console.log('test report missing: the test run did not finish');
  console.log('0 passed, 1 failed');
  process.exit(1);
}
const r = JSON.parse(readFileSync(file, 'utf8'));
const passed = r.numPassedTests ?? 0;
// Failed suites (a file that could not even load) count as failures too.
const failed = (r.numFailedTests ?? 0) + (r.numFailedTestSuites ?? 0) - (r.numFailedTests > 0 ? 0 : 0);
const failedSuitesOnly = (r.numFailedTestSuites ?? 0) > 0 && (r.numFailedTests ?? 0) === 0 ? r.numFailedTestSuites : 0;
const totalFailed = (r.numFailedTests ?? 0) + failedSuitesOnly;
void failed;
console.log(`${passed} passed, ${totalFailed} failed`);
process.exit(totalFailed > 0 || passed === 0 ? 1 : 0);
