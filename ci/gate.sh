#!/usr/bin/env bash
# The CI gate: installs what a fresh Debian machine lacks, then runs the
# README's test command, `make check` (BASE=2.43, Docker isolation).
# .ci/run calls this; ci/github-actions.yml and ci/gitlab-ci.yml show how to
# run the same gate in a user's own CI.
set -euo pipefail
cd "$(dirname "$0")/.."
t0=$(date +%s)

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  need=
  for p in make git rsync python3 xz-utils dejagnu gdb docker.io debootstrap \
           gnuplot-nox stress-ng linux-perf; do
    dpkg -s "$p" >/dev/null 2>&1 || need="$need $p"
  done
  if [ -n "$need" ]; then
    echo "==> installing:$need"
    apt-get update -q >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q $need >/dev/null
  fi
fi

export ISOLATION=${ISOLATION:-docker}
# Stop the dockerd that the harness started, if it did, when the gate ends.
trap 'make -s docker-stop >/dev/null 2>&1 || true' EXIT
rc=0
make check || rc=$?
echo "==> CI gate: $(( $(date +%s) - t0 ))s, exit $rc"
exit $rc
