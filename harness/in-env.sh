#!/usr/bin/env bash
# in-env.sh DIR CMD...: run CMD in DIR where the builds run (see env.sh).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/env.sh"
resolve_isolation >/dev/null
in_env "$@"
