#!/usr/bin/env bash
# The black-box core scenarios (ReaperJarBlackBoxIT: migrate, run-once over the spec's Tests table, a poison row, a
# locked row, a held run lock, the batch bound, a refused configuration) on each PostgreSQL major 13..17, then a
# result table. 15 is Debian's (/usr/lib/postgresql/15/bin); 13, 14, 16 and 17 are zonky's binary jars, which the
# reaper-it build copies to reaper-it/target/pg-binaries. The test command itself runs 13 and 17 only.
#
#   dev/pg-matrix.sh             # all five
#   dev/pg-matrix.sh 13 16       # some
#
# One Maven reactor run per version (the reactor builds the jars; nothing is installed into ~/.m2). Exit 0 only if
# every version passed. Logs: target/pg-matrix/<major>.log.
set -uo pipefail
cd "$(dirname "$0")/.."
versions=("$@")
[ ${#versions[@]} -eq 0 ] && versions=(13 14 15 16 17)
out=target/pg-matrix
mkdir -p "$out"
declare -A result seconds server itsec
status=0
for v in "${versions[@]}"; do
  start=$(date +%s)
  REAPER_BLACKBOX_PG="$v" ./mvnw -B verify -pl reaper-it -am -Dit.test=ReaperJarBlackBoxIT \
    -Dtest=NONE -Dsurefire.failIfNoSpecifiedTests=false -Dfailsafe.failIfNoSpecifiedTests=false \
    -Dspotless.check.skip=true >"$out/$v.log" 2>&1
  rc=$?
  seconds[$v]=$(($(date +%s) - start))
  report=reaper-it/target/failsafe-reports/pin.messenger.reaper.blackbox.ReaperJarBlackBoxIT-output.txt
  server[$v]=$(grep -h -o 'server_version [0-9.]*' "$report" 2>/dev/null | head -1 | cut -d' ' -f2)
  [ -f "$report" ] && cp "$report" "$out/$v-output.txt"
  itsec[$v]=$(grep -o 'Time elapsed: [0-9.]* s -- in pin.messenger.reaper.blackbox.ReaperJarBlackBoxIT' "$out/$v.log" |
    tail -1 | cut -d' ' -f3)
  tests=$(grep -o 'Tests run: [0-9]*, Failures: [0-9]*, Errors: [0-9]*, Skipped: [0-9]*' "$out/$v.log" | tail -1)
  if [ $rc -eq 0 ]; then result[$v]="PASS ($tests)"; else result[$v]="FAIL ($tests; see $out/$v.log)"; status=1; fi
  echo "PostgreSQL $v: ${result[$v]} in ${seconds[$v]} s"
done
echo
# The test class's time includes a one-off `bin/reaper prepare` (~60 s) whenever the reactor repackaged the jar.
echo "| PostgreSQL | server_version | black-box core scenarios | test class | wall time (build + tests) |"
echo "|---|---|---|---:|---:|"
for v in "${versions[@]}"; do
  echo "| $v | ${server[$v]:-?} | ${result[$v]} | ${itsec[$v]:-?} s | ${seconds[$v]} s |"
done
exit $status
