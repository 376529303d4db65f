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
difficulty: 1               # 0..100; mutations move it

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
