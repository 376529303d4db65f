#!/usr/bin/env bash
# Builds the sandbox base images through the CLI and exports their root folders for the bwrap backend.
# Called by .ci/run after `npm ci` and the build, with dockerd running. Idempotent: fast when already built.
set -euo pipefail
cd "$(dirname "$0")/.."
node dist/cli.js sandbox build-image --variant busybox
node dist/cli.js sandbox build-image --variant debian
# The richer base of imported and fixture tasks whose tests run pytest (Python, pytest, curl from Debian).
node dist/cli.js sandbox build-image --variant python
