#!/usr/bin/env bash
# Builds the mock-idp Docker image in CI: starts the container engine (../shared/ci), then a BuildKit build.
#
#   .ci/docker.sh [IMAGE]      IMAGE default: $MOCK_IDP_IMAGE, else mock-idp:local
#
# Exits non-zero with a clear message when the engine cannot be started or the build fails.
# Sets and exports nothing; the container tests reuse the image when MOCK_IDP_IMAGE names it.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

image=${1:-${MOCK_IDP_IMAGE:-mock-idp:local}}
engine=../shared/ci/container-engine.sh
fail() { echo "docker.sh: $*" >&2; exit 1; }

[ -f "$engine" ] || fail "$engine not found: clone shared/ beside this repository"
# The engine script prints the build flags (the npm_ca secret) on stdout, its progress on stderr.
flags=$(bash "$engine" node:24-bookworm-slim) || fail "the container engine could not be started (see above)"

# Debian's client speaks BuildKit without the buildx plugin (RUN --mount needs BuildKit).
docker=/usr/bin/docker
[ -x "$docker" ] || docker=docker
# shellcheck disable=SC2086 # $flags is a list of arguments
DOCKER_BUILDKIT=1 "$docker" build $flags -t "$image" . || fail "docker build of $image failed"
echo "docker.sh: built $image ($("$docker" image inspect -f '{{.Size}}' "$image") bytes)" >&2
