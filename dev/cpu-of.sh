#!/usr/bin/env bash
# Runs a command in a cgroup of its own and prints its wall time and the CPU time of everything it started,
# daemons included (a PostgreSQL that pg_ctl detached, a worker JVM a test left running): /usr/bin/time counts only
# the children a process waits for. Needs root and a cgroup v1 cpuacct or a cgroup v2 hierarchy. The figures in
# docs/benchmarks.md ("The test command") come from it, e.g.
#   dev/cpu-of.sh ./mvnw -B -q -o test-compile -Dspotless.check.skip=true
set -euo pipefail
(($# > 0)) || { echo "usage: dev/cpu-of.sh <command> [args...]" >&2; exit 2; }
name="cpu-of-$$"
if [[ -d /sys/fs/cgroup/cpuacct ]]; then
  group=/sys/fs/cgroup/cpuacct/$name
  mkdir "$group"
  usage() { echo "$(cat "$group/cpuacct.usage") / 1000000000" | bc -l; }
elif [[ -f /sys/fs/cgroup/cgroup.controllers ]]; then
  group=/sys/fs/cgroup/$name
  mkdir "$group"
  usage() { echo "$(awk '$1 == "usage_usec" {print $2}' "$group/cpu.stat") / 1000000" | bc -l; }
else
  echo "dev/cpu-of.sh: no cgroup v1 cpuacct or cgroup v2 hierarchy at /sys/fs/cgroup" >&2
  exit 1
fi
start=$(date +%s.%N)
status=0
bash -c 'echo $$ > "$1/cgroup.procs"; shift; exec "$@"' cpu-of "$group" "$@" || status=$?
end=$(date +%s.%N)
printf 'cpu-of: exit %d, wall %.1f s, cpu %.1f s (%s)\n' "$status" "$(echo "$end - $start" | bc -l)" "$(usage)" "$*" >&2
# The group can go once every process in it has ended.
for _ in $(seq 1 50); do rmdir "$group" 2>/dev/null && break; sleep 0.2; done
exit "$status"
