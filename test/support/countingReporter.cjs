// Mocha reporter: mocha's spec output for people, plus a counts file for scripts/test.mjs, which prints the
// closing "N passed, N failed" line CI reads. Pending tests count as skipped.
const Mocha = require('mocha');
const fs = require('node:fs');

class CountingReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    const counts = { passed: 0, failed: 0, skipped: 0, failures: [], skips: [] };
    runner.on('pass', () => counts.passed++);
    runner.on('fail', (test, err) => {
      counts.failed++;
      counts.failures.push({ title: test.fullTitle(), error: String(err && err.message) });
    });
    runner.on('pending', (test) => {
      counts.skipped++;
      counts.skips.push(test.fullTitle());
    });
    runner.once('end', () => {
      const out = process.env.COEVOLVE_COUNTS_FILE;
      if (out) fs.writeFileSync(out, JSON.stringify(counts));
    });
  }
}
module.exports = CountingReporter;
