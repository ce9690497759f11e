#!/usr/bin/env bash
# The CI gate: sets up what the machine lacks, then runs the README's test
# command, `make check` (BASE=2.43, Docker isolation).
# .ci/run calls this; ci/github-actions.yml and ci/gitlab-ci.yml show how to
# run the same gate in a user's own CI.
#
# Tools are found by what they do (harness/tools.sh): only a missing one is
# installed, with the package name of this distribution (Debian, Ubuntu),
# and only as root (AUTO_INSTALL=0 never installs).  perf, stress-ng and
# gnuplot are optional: a missing one is a note.  A Docker engine that
# already answers is used as it is; dockerd is started only where none does.
set -eo pipefail
cd "$(dirname "$0")/.."
t0=$(date +%s)
export AUTO_INSTALL=${AUTO_INSTALL-1}
# shellcheck source=../harness/lib.sh
. harness/lib.sh
note "gate on $(distro) ($(. "${OS_RELEASE:-/etc/os-release}" 2>/dev/null; echo "${PRETTY_NAME:-unknown}"))"
ensure_tools make git rsync tar python3 xz runtest gdb
ensure_tools -o perf stress-ng gnuplot

export ISOLATION=${ISOLATION:-docker}
# Stop the dockerd that the harness started, if it did, when the gate ends.
trap 'make -s docker-stop >/dev/null 2>&1 || true' EXIT
rc=0
make check || rc=$?
echo "==> CI gate: $(( $(date +%s) - t0 ))s, exit $rc"
exit $rc
