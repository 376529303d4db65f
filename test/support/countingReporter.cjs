// Mocha reporter: mocha's spec output for people, plus a counts file for scripts/test.mjs, which prints the
// closing "N passed, N failed" line CI reads. Pending tests count as skipped. It also prints the slowest top-level
// suites (hooks included: a suite's before() may run a whole co-evolution run), so a CI log says where the time went.
const Mocha = require('mocha');
const fs = require('node:fs');
const path = require('node:path');

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
    const suiteStart = new Map();
    const suiteTimes = [];
    runner.on('suite', (suite) => { if (suite.parent && suite.parent.root) suiteStart.set(suite, Date.now()); });
    runner.on('suite end', (suite) => {
      if (suiteStart.has(suite)) suiteTimes.push({ title: suite.title, file: suite.file, ms: Date.now() - suiteStart.get(suite) });
    });
    runner.once('end', () => {
      const slow = suiteTimes.sort((a, b) => b.ms - a.ms).slice(0, 12);
      if (slow.length > 1) {
        console.log('\n  slowest suites (wall time, hooks included):');
        for (const s of slow) console.log(`    ${(s.ms / 1000).toFixed(1).padStart(7)} s  ${s.title}  (${path.relative(process.cwd(), s.file || '')})`);
      }
      const out = process.env.COEVOLVE_COUNTS_FILE;
      if (out) fs.writeFileSync(out, JSON.stringify(counts));
      exitWatchdog();
    });
  }
}

/**
 * Mocha ends a run by letting the event loop drain. A socket or child process a test left referenced keeps the
 * process alive, and CI could wait for its 90-minute limit (a finished integration run stayed alive for minutes on
 * two docker exec sockets). So a process still alive a while after its last test fails, saying what holds it; the
 * timer itself holds nothing.
 */
function exitWatchdog() {
  const graceMs = Number(process.env.COEVOLVE_EXIT_GRACE_MS || 60000);
  setTimeout(() => {
    const held = process._getActiveHandles().map(describeHandle);
    console.error(`\n  the test process did not exit ${graceMs / 1000} s after its last test; held by: ${held.join('; ') || 'nothing node lists'}`);
    // Mocha's own exit listener sets the exit code to the number of failures; this one runs after it.
    process.on('exit', () => (process.exitCode = 1));
    process.exit(1);
  }, graceMs).unref();
}

function describeHandle(h) {
  const name = (h && h.constructor && h.constructor.name) || typeof h;
  if (h && h._httpMessage) return `${name} (${h._httpMessage.method} ${h._httpMessage.path})`;
  if (h && h.spawnfile) return `${name} (${h.spawnfile} pid ${h.pid})`;
  if (h && typeof h.address === 'function') {
    try {
      return `${name} (${JSON.stringify(h.address())})`;
    } catch {
      return name;
    }
  }
  return name;
}

module.exports = CountingReporter;
