// The Testing API view of the workspace: every environment spec is a test item; running it validates the
// environment in a sandbox (the oracle passes, an empty agent fails), streams the output, honours cancellation and
// shows pass/fail in the gutter and the Test Explorer.
import * as vscode from 'vscode';
import { CancelledError } from '../../core/ports/cancellation.js';
import { checkEnvironment, environmentFromText, type EnvironmentCheck } from './environmentCheck.js';
import type { LiveSpecs } from './liveDiagnostics.js';
import { abortSignalOf, currentText, runRefusal, withSandbox } from './sandboxSession.js';

export type TestOutcome = 'passed' | 'failed' | 'errored' | 'skipped';

export interface EnvironmentTests {
  readonly controller: vscode.TestController;
  /** Runs the given spec files (all when omitted) as one test run; resolves with each file's outcome by URI string. */
  run(uris?: vscode.Uri[], token?: vscode.CancellationToken): Promise<Map<string, TestOutcome>>;
  /** Runs a Test Explorer request (its includes and excludes) as the run profile does; for the tests. */
  runRequest(request: vscode.TestRunRequest, token?: vscode.CancellationToken): Promise<Map<string, TestOutcome>>;
  /** The last outcome of a spec file in this session. */
  lastOutcome(uri: vscode.Uri): TestOutcome | undefined;
  readonly onDidFinish: vscode.Event<vscode.Uri[]>;
}

export function activateEnvironmentTests(context: vscode.ExtensionContext, live: LiveSpecs, log: vscode.LogOutputChannel): EnvironmentTests {
  const controller = vscode.tests.createTestController('coevolve.environments', 'Coevolve environments');
  const outcomes = new Map<string, TestOutcome>();
  const finished = new vscode.EventEmitter<vscode.Uri[]>();
  const tests: TestSession = { controller, live, log, outcomes, finished };

  const sync = (): void => syncTestItems(controller, live);
  const runHandler = (request: vscode.TestRunRequest, token: vscode.CancellationToken): Promise<Map<string, TestOutcome>> => runEnvironmentTests(tests, request, token);

  controller.createRunProfile('Validate in sandbox', vscode.TestRunProfileKind.Run, (request, token) => void runHandler(request, token), true);
  controller.refreshHandler = async (token) => {
    await live.refreshAll(token);
    sync();
  };
  controller.resolveHandler = async () => sync();
  sync();
  context.subscriptions.push(controller, finished, live.onDidChange(() => sync()));

  return {
    controller,
    run: async (uris, token) => {
      for (const uri of uris ?? []) await live.ensure(uri);
      sync();
      const items = uris?.map((u) => controller.items.get(u.toString())).filter((i): i is vscode.TestItem => i !== undefined);
      return withToken(token, (t) => runHandler(new vscode.TestRunRequest(items), t));
    },
    runRequest: (request, token) => withToken(token, (t) => runHandler(request, t)),
    lastOutcome: (uri) => outcomes.get(uri.toString()),
    onDidFinish: finished.event,
  };
}

/**
 * Runs `work` with the caller's token or, when there is none, with the token of a source made for this call. A source
 * owns the emitter its token's listeners subscribe to (`abortSignalOf` does), so it is disposed once the work is done.
 */
async function withToken<T>(token: vscode.CancellationToken | undefined, work: (token: vscode.CancellationToken) => Promise<T>): Promise<T> {
  if (token) return work(token);
  const source = new vscode.CancellationTokenSource();
  try {
    return await work(source.token);
  } finally {
    source.dispose();
  }
}

/** What a test run works with: the controller and its items, the live index, and where outcomes go. */
interface TestSession {
  readonly controller: vscode.TestController;
  readonly live: LiveSpecs;
  readonly log: vscode.LogOutputChannel;
  /** The last outcome of each item in this session, by item id. */
  readonly outcomes: Map<string, TestOutcome>;
  readonly finished: vscode.EventEmitter<vscode.Uri[]>;
}

/** One test item per environment spec of the index, labelled by its id and marked on its `id:` line. */
function syncTestItems(controller: vscode.TestController, live: LiveSpecs): void {
  const wanted = live.index.fileNames().filter((f) => /\.env\.ya?ml$/i.test(f));
  const ids = new Set(wanted.map((f) => vscode.Uri.file(f).toString()));
  controller.items.forEach((item) => {
    if (!ids.has(item.id)) controller.items.delete(item.id);
  });
  for (const file of wanted) {
    const uri = vscode.Uri.file(file);
    const parsed = live.index.get(file);
    const spec = parsed?.spec as { id?: string; title?: string } | undefined;
    let item = controller.items.get(uri.toString());
    if (!item) {
      item = controller.createTestItem(uri.toString(), spec?.id ?? vscode.workspace.asRelativePath(uri, false), uri);
      controller.items.add(item);
    }
    if (spec?.id) item.label = spec.id;
    item.description = vscode.workspace.asRelativePath(uri, false);
    // The gutter mark goes on the `id:` line, where a reader looks for which environment this is.
    const at = parsed?.locate(['id'], 'key');
    item.range = at && at.line > 0 ? new vscode.Range(at.line - 1, 0, at.line - 1, 0) : new vscode.Range(0, 0, 0, 0);
    item.error = live.index.state(file) === 'errors' ? 'the spec has errors (see the Problems panel)' : undefined;
  }
}

/** What testing one item needs: the run it reports to, the cancellation, and where its outcome is recorded. */
interface ItemRun {
  readonly run: vscode.TestRun;
  readonly token: vscode.CancellationToken;
  readonly signal: AbortSignal;
  readonly live: LiveSpecs;
  readonly log: vscode.LogOutputChannel;
  record(item: vscode.TestItem, outcome: TestOutcome): void;
}

/** One test run: the requested items, one after the other. */
async function runEnvironmentTests(tests: TestSession, request: vscode.TestRunRequest, token: vscode.CancellationToken): Promise<Map<string, TestOutcome>> {
  const { controller, outcomes, finished } = tests;
  const results = new Map<string, TestOutcome>();
  const items = requestedItems(controller, request);
  const run = controller.createTestRun(request, 'Validate environments', true);
  const record = (item: vscode.TestItem, outcome: TestOutcome): void => {
    results.set(item.id, outcome);
    outcomes.set(item.id, outcome);
  };
  const cancel = abortSignalOf(token);
  const t: ItemRun = { run, token, signal: cancel.signal, live: tests.live, log: tests.log, record };
  try {
    for (const item of items) run.enqueued(item);
    for (const item of items) {
      if (token.isCancellationRequested) {
        run.skipped(item);
        record(item, 'skipped');
        continue;
      }
      run.started(item);
      const started = Date.now();
      const refusal = runRefusal();
      if (refusal) {
        run.errored(item, new vscode.TestMessage(refusal));
        record(item, 'errored');
        continue;
      }
      await checkItem(item, started, t);
    }
  } finally {
    cancel.dispose();
    run.end();
    finished.fire(items.map((i) => i.uri!).filter(Boolean));
  }
  return results;
}

/**
 * The items a request runs: the included ones (every item when it names none) less the excluded ones. The Testing
 * API asks a controller not to run an excluded item, so it is neither reported in the run nor among the finished.
 */
function requestedItems(controller: vscode.TestController, request: vscode.TestRunRequest): vscode.TestItem[] {
  const excluded = new Set((request.exclude ?? []).map((i) => i.id));
  const items: vscode.TestItem[] = [];
  if (request.include) items.push(...request.include);
  else controller.items.forEach((i) => items.push(i));
  return items.filter((i) => !excluded.has(i.id));
}

/** Checks one started item's environment in a sandbox (or reports why its spec cannot be read) and records how it went. */
async function checkItem(item: vscode.TestItem, started: number, t: ItemRun): Promise<void> {
  const { run, token, record } = t;
  try {
    const uri = item.uri!;
    const parsed = environmentFromText(await currentText(uri), uri.fsPath);
    let check: EnvironmentCheck;
    if ('spec' in parsed) {
      const spec = parsed.spec;
      check = await withSandbox([spec.sandbox.image], t.log, (backend) =>
        checkEnvironment(spec, backend, (text) => run.appendOutput(text, undefined, item), t.signal));
    } else {
      check = parsed;
      run.appendOutput(`${check.message}\r\n`, undefined, item);
    }
    reportCheck(item, check, started, t);
  } catch (err) {
    if (err instanceof CancelledError || token.isCancellationRequested) {
      run.skipped(item);
      record(item, 'skipped');
    } else {
      const text = err instanceof Error ? err.message : String(err);
      run.appendOutput(`ERROR: ${text}\r\n`, undefined, item);
      run.errored(item, new vscode.TestMessage(text), Date.now() - started);
      record(item, 'errored');
    }
  }
}

/** Passed, failed (at the problem's line, else the `oracle:` key) or, when cancelled meanwhile, skipped. */
function reportCheck(item: vscode.TestItem, check: EnvironmentCheck, started: number, t: ItemRun): void {
  const { run, record } = t;
  const uri = item.uri!;
  if (t.token.isCancellationRequested) {
    run.skipped(item);
    record(item, 'skipped');
  } else if (check.passed) {
    run.passed(item, Date.now() - started);
    record(item, 'passed');
  } else {
    const message = new vscode.TestMessage(check.message);
    const line = check.problem ? check.problem.line - 1 : oracleLine(t.live, uri);
    message.location = new vscode.Location(uri, new vscode.Position(Math.max(0, line), 0));
    run.failed(item, message, Date.now() - started);
    record(item, 'failed');
  }
}

/** Where an oracle failure is shown: the `oracle:` key. */
function oracleLine(live: LiveSpecs, uri: vscode.Uri): number {
  const at = live.index.get(uri.fsPath)?.locate(['oracle'], 'key');
  return at ? at.line - 1 : 0;
}
