#!/usr/bin/env bash
# Builds the production image from ops/container/Containerfile and proves it against a real PostgreSQL:
# migrate, a running worker closing due rooms, readiness, a graceful stop on SIGTERM, non-root, read-only root.
#
#   bash ops/container/test-image.sh [path/to/conference-room-reaper.jar]
#     default jar: reaper-worker/target/conference-room-reaper.jar (relative to the repository root)
#
# No container registry is needed: the base image is bootstrapped from the Debian mirror apt already uses
# (debootstrap, bookworm, openjdk-17-jre-headless) and imported as localhost/reaper-base:bookworm. Podman keeps its
# whole store in a temporary directory, removed at the end (~1.5 GB while it runs, a few minutes on 2 cores).
# Without podman, and no way to install it (needs root and apt-get), it prints "SKIPPED: ..." and exits 0.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
containerfile="$repo/ops/container/Containerfile"
jar="${1:-reaper-worker/target/conference-room-reaper.jar}"
[[ "$jar" == /* ]] || jar="$repo/$jar"
suite=bookworm
base_image="localhost/reaper-base:$suite"
image="localhost/conference-room-reaper:test"
name="reaper-image-test-$$"
due_rooms=5
grace_seconds=30 # Kubernetes' default terminationGracePeriodSeconds

say() { echo "test-image: $*" >&2; }
skip() { echo "SKIPPED: $*"; exit 0; }
die() { say "FAILED: $*"; exit 1; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

[[ -f "$jar" ]] || die "no jar at $jar (build it first, or pass its path as the first argument)"

# --- tools ----------------------------------------------------------------------------------------------------
missing=()
for tool in podman runc debootstrap curl; do
  command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
done
if ((${#missing[@]})); then
  what="tools missing"
  [[ " ${missing[*]} " == *" podman "* ]] && what="podman not available"
  if [[ "$(id -u)" -ne 0 ]]; then
    skip "$what (missing: ${missing[*]}; installing needs root)"
  elif ! command -v apt-get >/dev/null 2>&1; then
    skip "$what (missing: ${missing[*]}; no apt-get to install them)"
  fi
  say "installing ${missing[*]} with apt-get"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
[[ "$(id -u)" -eq 0 ]] || skip "podman available but not root (the test needs rootful podman, debootstrap and chroot)"

# --- scratch space and cleanup --------------------------------------------------------------------------------
work="$(mktemp -d /tmp/reaper-image.XXXXXX)"
chmod 0755 "$work" # the postgres user must reach its data directory below
rootfs="$work/rootfs"
pgdir="$work/pg"
pgbin=""
export CONTAINERS_CONF="$work/containers.conf"
export TMPDIR="$work/tmp"
mkdir -p "$TMPDIR"
# Facts of this kind of machine: crun fails on hybrid cgroups (runc works); the default ulimits are refused, so
# they are explicit; no systemd, so cgroupfs and a file for events.
cat >"$CONTAINERS_CONF" <<EOF
[containers]
default_ulimits = ["nofile=20000:20000", "nproc=32768:32768"]

[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
image_copy_tmp_dir = "$TMPDIR"
EOF
pm_args=(--root "$work/storage" --runroot "$work/run" --storage-driver overlay --tmpdir "$work/libpod")
pm() { podman "${pm_args[@]}" "$@"; }

mounts_under() { awk -v w="$1" '$2 == w || index($2, w "/") == 1 { print $2 }' /proc/self/mounts | sort -r; }
cleanup() {
  local status=$?
  set +e
  pm rm -f -t 0 "$name" >/dev/null 2>&1
  if [[ -n "$pgbin" && -f "$pgdir/data/postmaster.pid" ]]; then
    runuser -u postgres -- "$pgbin/pg_ctl" -D "$pgdir/data" -m immediate -w stop >/dev/null 2>&1
  fi
  pm rmi -a -f >/dev/null 2>&1
  local m
  for m in $(mounts_under "$work"); do umount "$m" 2>/dev/null || umount -l "$m"; done
  if [[ -n "$(mounts_under "$work")" ]]; then
    say "left $work in place: still mounted: $(mounts_under "$work" | tr '\n' ' ')"
  else
    rm -rf --one-file-system "$work"
  fi
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- checks ---------------------------------------------------------------------------------------------------
passed=0
failed=0
pass() { passed=$((passed + 1)); say "ok   $*"; }
fail() { failed=$((failed + 1)); say "FAIL $*"; }
check() { # check <description> <command...>
  local what="$1"
  shift
  if "$@"; then pass "$what"; else fail "$what"; fi
}
container_log="$work/container.log"
# A snapshot of the container's output (stdout and stderr) in $container_log; greps read the file, never a pipe
# from podman (grep -q would close it early and pipefail would turn a match into a failure).
snapshot_log() { pm logs "$name" >"$container_log" 2>&1 || true; }
log_has() { grep -q -- "$1" "$container_log"; }
log_lacks() { ! grep -q -- "$1" "$container_log"; }
show_log() {
  snapshot_log
  say "container log ($name):"
  sed 's/^/  | /' "$container_log" >&2
}
finish() {
  echo "image-test: $passed passed, $failed failed"
  if ((failed)); then
    show_log
    exit 1
  fi
  exit 0
}

# --- 1. base image: Debian bookworm + Java 17 runtime, from the mirror apt uses here --------------------------
# The first URI of a bookworm (or bookworm-security) entry, one-line or deb822 format.
apt_uri() {
  local want="$1"
  awk -v want="$want" '
    function flush() { if (uris != "" && (" " suites " ") ~ (" " want " ")) { print uris; found = 1; exit } uris = ""; suites = "" }
    FNR == 1 { flush() }
    /^[ \t]*#/ { next }
    /^deb[ \t]/ { sub(/\[[^]]*\][ \t]*/, ""); if ($3 == want) { print $2; found = 1; exit } next }
    /^URIs:/ { uris = $2 }
    /^Suites:/ { sub(/^Suites:[ \t]*/, ""); suites = $0 }
    /^[ \t]*$/ { flush() }
    END { if (!found) flush() }
  ' "${apt_sources[@]}" | head -n 1
}
apt_sources=()
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
  if [[ -f "$f" ]]; then apt_sources+=("$f"); fi
done
((${#apt_sources[@]})) || die "no apt sources in /etc/apt: cannot tell which Debian mirror to use"
mirror="$(apt_uri "$suite")"
security="$(apt_uri "$suite-security")"
[[ -n "$mirror" ]] || die "no '$suite' entry in /etc/apt/sources.list(.d): cannot tell which Debian mirror to use"

t_base="$(now)"
say "bootstrapping $base_image from $mirror (debootstrap minbase + openjdk-17-jre-headless)"
keyring=()
[[ -f /usr/share/keyrings/debian-archive-keyring.gpg ]] && keyring=(--keyring=/usr/share/keyrings/debian-archive-keyring.gpg)
debootstrap --variant=minbase "${keyring[@]}" "$suite" "$rootfs" "$mirror" >"$work/debootstrap.log" 2>&1 ||
  { tail -n 30 "$work/debootstrap.log" >&2; die "debootstrap failed"; }
# The image's own apt (the train stage installs PostgreSQL) must reach the same mirror.
{
  echo "deb $mirror $suite main"
  echo "deb $mirror $suite-updates main"
  [[ -n "$security" ]] && echo "deb $security $suite-security main"
} >"$rootfs/etc/apt/sources.list"
cp /etc/resolv.conf "$rootfs/etc/resolv.conf"
printf '#!/bin/sh\nexit 101\n' >"$rootfs/usr/sbin/policy-rc.d"
chmod +x "$rootfs/usr/sbin/policy-rc.d"
mount -t proc proc "$rootfs/proc"
mount -t sysfs sysfs "$rootfs/sys"
# A clean environment in the chroot: this script's TMPDIR (and anything else of the host's) does not exist there.
chroot "$rootfs" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
    DEBIAN_FRONTEND=noninteractive /bin/sh -c 'apt-get update -qq && apt-get install -y -qq \
    --no-install-recommends openjdk-17-jre-headless ca-certificates && apt-get clean && rm -rf /var/lib/apt/lists/*' \
  >"$work/chroot-install.log" 2>&1 || { tail -n 30 "$work/chroot-install.log" >&2; die "installing Java in the rootfs failed"; }
umount "$rootfs/sys" "$rootfs/proc"
rm -f "$rootfs/usr/sbin/policy-rc.d" "$rootfs/etc/resolv.conf"
tar -C "$rootfs" --numeric-owner -c . |
  pm import --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'ENV LANG=C.UTF-8' - "$base_image" >"$work/import.log" 2>&1 ||
  { cat "$work/import.log" >&2; die "podman import of the rootfs failed"; }
rm -rf --one-file-system "$rootfs"
say "base image ready in $(since "$t_base") s"

# --- 2. the image ---------------------------------------------------------------------------------------------
revision="$(git -C "$repo" rev-parse HEAD 2>/dev/null || echo unknown)"
# -N: the root pom's version, also after the module split (one line, not one per module).
version="$(cd "$repo" && ./mvnw -q -B -N help:evaluate -Dexpression=project.version -DforceStdout 2>/dev/null || true)"
if [[ ! "$version" =~ ^[0-9A-Za-z.+-]+$ ]]; then
  version="$(sed -n '/<parent>/,/<\/parent>/d; s:.*<version>\(.*\)</version>.*:\1:p' "$repo/pom.xml" | head -n 1)"
fi
source_url="$(git -C "$repo" remote get-url origin 2>/dev/null || echo unknown)"
context="$work/context"
mkdir -p "$context"
cp "$jar" "$context/conference-room-reaper.jar"
t_build="$(now)"
say "building $image (version $version, revision $revision)"
if ! pm build --pull=never --network=host --layers=false -f "$containerfile" \
    --build-arg BASE_IMAGE="$base_image" --build-arg VERSION="$version" --build-arg REVISION="$revision" \
    --build-arg SOURCE="$source_url" -t "$image" "$context" >"$work/build.log" 2>&1; then
  tail -n 60 "$work/build.log" >&2
  die "image build failed"
fi
build_seconds="$(since "$t_build")"
say "image built in $build_seconds s"
image_bytes="$(pm image inspect --format '{{.Size}}' "$image")"
base_bytes="$(pm image inspect --format '{{.Size}}' "$base_image")"

check "image runs as uid 10001 by default" test "$(pm image inspect --format '{{.Config.User}}' "$image")" = 10001
check "id -u inside the container is 10001" \
  test "$(pm run --rm --read-only --network=none --entrypoint id "$image" -u)" = 10001
check "the revision label is the commit" \
  test "$(pm image inspect --format '{{index .Labels "org.opencontainers.image.revision"}}' "$image")" = "$revision"
check "the version label is the project version ($version)" \
  test "$(pm image inspect --format '{{index .Labels "org.opencontainers.image.version"}}' "$image")" = "$version"
check "the final image holds no PostgreSQL" pm run --rm --read-only --network=none --entrypoint /bin/sh "$image" \
  -c 'test ! -e /usr/lib/postgresql && test ! -e /usr/share/postgresql-common && ! command -v postgres'
check "/app holds the unpacked jar, lib/ and the class-data archive" pm run --rm --read-only --network=none \
  --entrypoint /bin/sh "$image" -c 'test -s /app/conference-room-reaper.jar && test -d /app/lib && test -s /app/reaper.jsa'

# --- 3. a real PostgreSQL on the host -------------------------------------------------------------------------
pgbin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)"
if [[ -z "$pgbin" || ! -x "$pgbin/initdb" ]]; then
  say "installing postgresql with apt-get (its own cluster is not started)"
  export DEBIAN_FRONTEND=noninteractive
  made_policy=""
  if [[ ! -e /usr/sbin/policy-rc.d ]]; then
    printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d && made_policy=1
  fi
  apt-get update -qq && apt-get install -y -qq --no-install-recommends postgresql >/dev/null
  [[ -n "$made_policy" ]] && rm -f /usr/sbin/policy-rc.d
  pgbin="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)"
fi
port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
free_port() {
  local p
  for p in $(shuf -i 20000-60000 -n 100); do
    if port_free "$p" && [[ "$p" != "${1:-}" ]]; then echo "$p"; return; fi
  done
  die "no free port found"
}
pg_port="$(free_port)"
http_port="$(free_port "$pg_port")"
mkdir -p "$pgdir"
chown postgres "$pgdir"
runuser -u postgres -- "$pgbin/initdb" -D "$pgdir/data" -U postgres -A trust --no-sync >"$work/initdb.log" 2>&1 ||
  { cat "$work/initdb.log" >&2; die "initdb failed"; }
runuser -u postgres -- "$pgbin/pg_ctl" -D "$pgdir/data" -l "$pgdir/server.log" -w \
  -o "-c listen_addresses=127.0.0.1 -p $pg_port -k $pgdir -c fsync=off" start >/dev/null ||
  { cat "$pgdir/server.log" >&2; die "PostgreSQL did not start"; }
say "PostgreSQL $("$pgbin/postgres" -V | awk '{print $3}') on 127.0.0.1:$pg_port"
sql() { "$pgbin/psql" -X -q -At -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$pg_port" -U postgres -d postgres -c "$1"; }

db=(-e "SPRING_DATASOURCE_URL=jdbc:postgresql://127.0.0.1:$pg_port/postgres" -e SPRING_DATASOURCE_USERNAME=postgres)
# How production runs it: read-only root, only /tmp writable, no capabilities, no privilege gain.
hardened=(--read-only --tmpfs /tmp --network=host --user 10001 --cap-drop=ALL --security-opt=no-new-privileges)

# --- 4. migrate -----------------------------------------------------------------------------------------------
if pm run --rm "${hardened[@]}" "${db[@]}" "$image" migrate >"$work/migrate.out" 2>"$work/migrate.err"; then
  pass "migrate exits 0 on a read-only root"
else
  fail "migrate exits 0 on a read-only root"
  sed 's/^/  | /' "$work/migrate.out" "$work/migrate.err" >&2
fi
check "migrate created messenger.conference_sessions" \
  test "$(sql "SELECT to_regclass('messenger.conference_sessions') IS NOT NULL")" = t

# The archive is really used: with -Xshare:on the JVM refuses to start on an archive it cannot map, and every class
# it loads from the archive's top (application) layer is counted. _JAVA_OPTIONS comes after the command line.
pm run --rm "${hardened[@]}" "${db[@]}" -e "_JAVA_OPTIONS=-Xshare:on -Xlog:class+load=info:stderr" "$image" migrate \
  >/dev/null 2>"$work/cds.err" || true
cds_classes="$(grep -c 'source: shared objects file (top)' "$work/cds.err" || true)"
check "the class-data archive is used ($cds_classes classes from its application layer)" test "$cds_classes" -gt 1000

# Informational: what the archive buys. Wall time of a start of `run` up to a refreshed context (then it exits),
# podman's own overhead included, with the archive and with class-data sharing off.
refresh_time() {
  local t0
  t0="$(now)"
  pm run --rm "${hardened[@]}" "${db[@]}" -e "_JAVA_OPTIONS=-Dspring.context.exit=onRefresh $1" "$image" \
    run --server.port=0 >/dev/null 2>&1 || { echo "n/a"; return; }
  since "$t0"
}
refresh_cds="$(refresh_time -Xshare:auto)"
refresh_nocds="$(refresh_time -Xshare:off)"

# --- 5. the worker --------------------------------------------------------------------------------------------
sql "INSERT INTO messenger.conference_sessions
       (id, chat_id, deal_id, tenant_id, media_type, status, started_by_user_id, created_at, started_at,
        last_activity_at, updated_at, active_participant_count, peak_participant_count)
     SELECT gen_random_uuid(), gen_random_uuid(), gen_random_uuid(), gen_random_uuid(), 'Video', 'Active',
            gen_random_uuid(), now() - interval '21 minutes', now() - interval '20 minutes',
            now() - interval '10 minutes', now() - interval '10 minutes', 0, 2
       FROM generate_series(1, $due_rooms);
     -- Not due: people are in it and were just active. Must stay Active.
     INSERT INTO messenger.conference_sessions
       (id, chat_id, deal_id, tenant_id, media_type, status, started_by_user_id, created_at, started_at,
        last_activity_at, updated_at, active_participant_count, peak_participant_count)
     VALUES (gen_random_uuid(), gen_random_uuid(), gen_random_uuid(), gen_random_uuid(), 'Audio', 'Active',
             gen_random_uuid(), now() - interval '5 minutes', now() - interval '4 minutes', now(), now(), 2, 2);"

t_run="$(now)"
pm run -d --name "$name" "${hardened[@]}" "${db[@]}" "$image" \
  run --reaper.polling-interval=2s --server.port="$http_port" >/dev/null
started_ns="$(pm inspect --format '{{.State.StartedAt.UnixNano}}' "$name" 2>/dev/null || true)"
started="$(awk -v n="$started_ns" -v t="$t_run" 'BEGIN { if (n ~ /^[0-9]+$/ && n > 0) printf "%.3f", n / 1e9; else print t }')"

ended=0
for _ in $(seq 1 60); do
  ended="$(sql "SELECT count(*) FROM messenger.conference_sessions WHERE status = 'Ended' AND end_reason IS NOT NULL")"
  [[ "$ended" -ge "$due_rooms" ]] && break
  [[ "$(pm inspect --format '{{.State.Running}}' "$name")" == true ]] || break
  sleep 1
done
check "the $due_rooms due rooms are Ended ($ended)" test "$ended" -eq "$due_rooms"
check "the occupied room is still Active" \
  test "$(sql "SELECT count(*) FROM messenger.conference_sessions WHERE status = 'Active'")" -eq 1
check "an integration event per closed room is in the outbox" \
  test "$(sql "SELECT count(*) FROM messenger.integration_outbox")" -eq "$due_rooms"

ready=""
for _ in $(seq 1 20); do
  ready="$(curl -fsS --max-time 2 "http://127.0.0.1:$http_port/actuator/health/readiness" 2>/dev/null || true)"
  [[ "$ready" == *'"UP"'* ]] && break
  sleep 0.5
done
check "readiness answers UP ($ready)" grep -q '"status":"UP"' <<<"$ready"

snapshot_log
first_cycle="$(grep -m 1 '"message":"cycle completed"' "$container_log" |
  sed -n 's/.*"@timestamp":"\([^"]*\)".*/\1/p' || true)"
if [[ -n "$first_cycle" ]]; then
  first_cycle_seconds="$(awk -v a="$started" -v b="$(date -d "$first_cycle" +%s.%N)" 'BEGIN { printf "%.2f", b - a }')"
  pass "first 'cycle completed' ${first_cycle_seconds} s after the container started"
else
  first_cycle_seconds="n/a"
  fail "a 'cycle completed' log line"
fi
started_line="$(grep -m 1 -o '"message":"Started [^"]*"' "$container_log" || true)"

# --- 6. SIGTERM -----------------------------------------------------------------------------------------------
t_stop="$(now)"
pm kill --signal TERM "$name" >/dev/null
timeout "$((grace_seconds + 5))" podman "${pm_args[@]}" wait "$name" >/dev/null 2>&1 || true
stop_seconds="$(since "$t_stop")"
exit_code="$(pm inspect --format '{{.State.ExitCode}}' "$name")"
running="$(pm inspect --format '{{.State.Running}}' "$name")"
check "stopped ${stop_seconds} s after SIGTERM, within the ${grace_seconds} s grace period" \
  awk -v s="$stop_seconds" -v g="$grace_seconds" -v r="$running" 'BEGIN { exit !(r == "false" && s < g) }'
# The JVM ends a SIGTERM-initiated shutdown with 128 + 15 once its shutdown hooks (Spring's context close) are done.
check "exit code after SIGTERM is 143 ($exit_code)" test "$exit_code" = 143
snapshot_log
check "the log shows the graceful stop ('reaper loop stopped')" log_has '"message":"reaper loop stopped"'
check "no cycle had to be interrupted on the way down" log_lacks 'cycle did not stop in time'

# --- figures --------------------------------------------------------------------------------------------------
mb() { awk -v b="$1" 'BEGIN { printf "%.0f MB", b / 1e6 }'; }
say "figures: image $(mb "$image_bytes") ($image_bytes bytes; base $(mb "$base_bytes"));" \
  "build ${build_seconds} s (base bootstrap not included);" \
  "start to first 'cycle completed' ${first_cycle_seconds} s;" \
  "start to a refreshed context ${refresh_cds} s with the archive, ${refresh_nocds} s without;" \
  "stop after SIGTERM ${stop_seconds} s (exit $exit_code); ${started_line#\"message\":}"
finish
