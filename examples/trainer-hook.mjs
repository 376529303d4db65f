#!/usr/bin/env node
// An example trainer hook (run config: `trainerHook: { command: [node, examples/trainer-hook.mjs, <baseUrl>] }`).
//
// The contract. Coevolve runs the command after each generation, before the next one is planned, with:
//   COEVOLVE_RUN_DIR         the run directory
//   COEVOLVE_GENERATION      the generation just played (0, 1, ...)
//   COEVOLVE_GENERATION_DIR  its rollouts: <rolloutId>.json (ATIF-compatible steps, reward, verification) and, for
//                            an agent with tokenData, <rolloutId>.tokens.jsonl (per-turn token ids and logprobs)
//   COEVOLVE_HOOK_RESULT     where the hook may write its result (JSON)
// Its stdout and stderr go to artifacts/hooks/g<NNNN>.log, its exit code to the `hook.finished` event; it is killed
// after `timeoutSec`. After a 0 exit, the result (if written) says what the agent plays the next generation on:
//   { "agent": { "model": "<name>", "baseUrls": ["http://127.0.0.1:8001/v1"] } }
// Both fields are optional (left out: unchanged). The result is recorded in the event, so a resumed run goes on with
// the switched model; a result that is not valid stops the run with its file:line:column, and a resume runs the
// hook again. A hook already recorded is never run twice.
import { readdirSync, writeFileSync } from 'node:fs';

const generation = Number(process.env.COEVOLVE_GENERATION);
const dir = process.env.COEVOLVE_GENERATION_DIR;
const files = readdirSync(dir);
const rollouts = files.filter((f) => f.endsWith('.json'));
const withTokens = files.filter((f) => f.endsWith('.tokens.jsonl'));
console.log(`trained on ${rollouts.length} rollouts of generation ${generation} in ${process.env.COEVOLVE_RUN_DIR} (${withTokens.length} with token data)`);

// A real hook trains here: e.g. `coevolve export "$COEVOLVE_RUN_DIR" --format chat-jsonl` (or read the sidecars
// directly), one RL or SFT step, then load the checkpoint into the inference server under a new name.
const [baseUrl] = process.argv.slice(2);
if (baseUrl) {
  const result = { agent: { model: `ckpt-g${generation}`, baseUrls: [baseUrl] } };
  writeFileSync(process.env.COEVOLVE_HOOK_RESULT, `${JSON.stringify(result, null, 2)}\n`);
}
