// The text of a new environment or user spec: valid as written (validation passes, the oracle solves the task and
// an empty agent fails it), with comments saying what each part is for, so a researcher edits rather than looks up.

/** A spec id from a free name: lowercase, digits, ".", "_", "-" (what `idSchema` accepts). */
export function specIdFrom(name: string): string {
  const id = name
    .toLowerCase()
    .replace(/\.(env|user|run|agent)\.ya?ml$/, '')
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[^a-z0-9]+/, '')
    .replace(/-+$/, '')
    .slice(0, 128);
  return id === '' ? 'new-spec' : id;
}

export function environmentScaffold(id: string): string {
  return `# yaml-language-server: $schema=schemas/environment.schema.json
# An environment spec: one terminal task for the agent, plus the user it works for.
# Hover a key for what it means; Ctrl+Space lists the keys valid where the cursor is.
# The lenses above "apiVersion" validate it in a sandbox, play one rollout, or evolve a child.

apiVersion: coevolve/v1
kind: Environment
id: ${id}                   # unique among the workspace's environments
title: Count the lines of the user's report
family: custom              # a free label that groups related tasks
difficulty: 1               # design level, 0..100 (built-in families: 1..5): a label set by the knobs, not measured

# What the agent is told before the user speaks. Keep the hidden facts out of it.
instruction: |
  A user needs a number from one of the reports in reports/. Ask them which report
  they mean, write the answer to answer.txt, then submit.

sandbox:
  # image and workdir have defaults (a local busybox image, /workspace); there is never a network.
  limits:
    commandTimeoutSec: 10   # per agent command
  files:                    # written into the workspace before the agent starts
    - path: reports/monday.txt
      content: |
        alpha
        beta
        gamma
    - path: reports/tuesday.txt
      content: |
        delta
        epsilon

# Runs after the agent submits, in the workspace; exit 0 = pass. The agent never sees it.
verifier:
  timeoutSec: 10
  script: |
    [ -f answer.txt ] || { echo "answer.txt is missing"; exit 1; }
    got=$(tr -d ' \\t\\r\\n' < answer.txt)
    [ "$got" = "2" ] || { echo "answer.txt says '$got', expected 2"; exit 1; }

# A known-good solution, run with every hidden fact known. Validation requires it to pass.
oracle:
  script: |
    wc -l < reports/tuesday.txt | tr -d ' ' > answer.txt

# The user side: what they ask at first, what only they know, and what success means to them.
user:
  request: Can you tell me how many lines my report has?
  facts:
    - id: which-report
      text: It is the Tuesday report.
      keywords: [which, report, day, file]
  requiredFacts: [which-report]
  goal: The agent writes the line count of the Tuesday report to answer.txt.
`;
}

export function userScaffold(id: string): string {
  return `# yaml-language-server: $schema=schemas/user.schema.json
# A simulated user: who they are, how they behave, and what they know that the agent has to ask for.
# Hover a key for what it means; Ctrl+Space lists the keys valid where the cursor is.

apiVersion: coevolve/v1
kind: User
id: ${id}                   # unique among the workspace's users

persona:
  name: Sam
  background: Runs a small online shop and checks its reports every morning.
  expertise: novice         # novice | intermediate | expert
  style: plain              # how they write, e.g. "formal", "terse", "typos"

behavior:
  cooperativeness: 0.8      # 0..1: chance of answering a relevant question fully
  patience: 12              # agent turns tolerated before giving up
  disclosure: on_request    # upfront | on_request | incremental
  ambiguity: 0.3            # 0 = precise opening request, 1 = vague
  errorReaction: calm       # calm | frustrated | accusatory
  verbosity: 0.5            # 0 = terse, 1 = wordy

# Personal facts, in addition to those an environment gives the user.
facts:
  - id: deadline
    text: I need it before the 10 o'clock meeting.
    keywords: [when, deadline, time]
`;
}

/**
 * A run config that runs as written, offline: the built-in task families, users and agent (none of them an LLM).
 * Comments say how to put the workspace's own environment and user specs in, and how to use a model.
 */
export function runScaffold(id: string): string {
  return `# yaml-language-server: $schema=schemas/run.schema.json
# A run config: which environments and users co-evolve around the agent, for how long, and how hard to push.
# Start it with the lens above "apiVersion", "Coevolve: Start Run…", or \`coevolve run ${id}.run.yaml\`.

apiVersion: coevolve/v1
kind: Run
name: ${id}                 # the run directory is <output>/<name>-<start time>
seed: 1                     # same config + same seed = same run
generations: 3

population:
  # Built-in task families (no spec files needed), generated at builtinLevel (1 = easiest of 1..5).
  builtinFamilies: [log-triage, csv-report]
  builtinLevel: 2
  # Your own specs, relative to this file (files or folders):
  # environments: [my-task.env.yaml]
  # users: [my-user.user.yaml]        # none listed: the five built-in seed users
  pairsPerGeneration: 4     # (environment, user) pairs played per generation
  childrenPerGeneration: 2  # mutated children proposed per generation

k: 4                        # rollouts per pair without the hint
hintPlays: 1                # rollouts per pair with the privileged hint (regret = hint reward - plain reward)
band: { low: 0.4, high: 0.6, ramp: 0.25 }   # keep tasks the agent solves 40-60 % of the time

concurrency: 4
sandbox:
  backend: auto             # Docker when it answers and has the image, else bubblewrap

roles:                      # built in: offline, no key; for a model: { kind: llm, endpoint: <name>, model: <name> }
  agent: { kind: builtin }
  user: { kind: builtin }
  designer: { kind: builtin }
  judge: { kind: builtin }

output: runs
`;
}
