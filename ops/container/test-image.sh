#!/usr/bin/env bash
# Builds the production image from ops/container/Containerfile and proves it against a real PostgreSQL:
# migrate, a running worker closing due rooms, readiness, the runbook's on-call commands run in the worker's container
# (as `kubectl exec` runs them), a graceful stop on SIGTERM, non-root, read-only root, the start-up cache in use.
# Twice: on a Java 17 base (AppCDS archive) and, when this machine has a JDK >= 25, on a Java 25 base (AOT cache);
# then container start to first cycle, alternating, for both.
#
#   bash ops/container/test-image.sh [path/to/conference-room-reaper.jar]
#     default jar: reaper-worker/target/conference-room-reaper.jar (relative to the repository root)
#   IMAGE_START_ROUNDS=3   rounds of the start-to-first-cycle timing (each image once per round; 0: none)
#   IMAGE_JDK25=<home>     the JDK >= 25 for the second base (default: the one bin/reaper picks; "none": skip it)
#
# No container registry is needed: the base images are bootstrapped from the Debian mirror apt already uses
# (debootstrap, bookworm): localhost/reaper-base:bookworm with openjdk-17-jre-headless, and
# localhost/reaper-base:bookworm-jdk25 with a runtime jlink'd from the host's JDK >= 25 in /opt/java/openjdk (the
# whole JDK copied if it has no jlink). Podman keeps its whole store in a temporary directory, removed at the end
# (~2 GB while it runs, ~4 minutes on 2 cores). Without podman, and no way to install it (needs root and apt-get),
# it prints "SKIPPED: ..." and exits 0 — except under CI=true (.ci/run installs podman, runc, debootstrap and
# curl), where a missing prerequisite is a failure naming it.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
containerfile="$repo/ops/container/Containerfile"
jar="${1:-reaper-worker/target/conference-room-reaper.jar}"
[[ "$jar" == /* ]] || jar="$repo/$jar"
suite=bookworm
base_image="localhost/reaper-base:$suite"
base_image25="localhost/reaper-base:$suite-jdk25"
name="reaper-image-test-$$"
export USER="${USER:-$(id -un)}" # the runbook's reaper_operator names the caller with it
start_rounds="${IMAGE_START_ROUNDS:-3}"
[[ "$start_rounds" =~ ^[0-9]+$ ]] || { echo "test-image: IMAGE_START_ROUNDS must be a number, not '$start_rounds'" >&2; exit 2; }
due_rooms=5
grace_seconds=30 # Kubernetes' default terminationGracePeriodSeconds

say() { echo "test-image: $*" >&2; }
die() { say "FAILED: $*"; exit 1; }
ci() { [[ -n "${CI:-}" && "${CI,,}" != false && "${CI}" != 0 ]]; }
skip() {
  ci && die "CI=true and a prerequisite is missing: $* (.ci/run installs podman, runc, debootstrap and curl as root)"
  echo "SKIPPED: $*"
  exit 0
}
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

[[ -f "$jar" ]] || die "no jar at $jar (build it first, or pass its path as the first argument)"
t_script="$(now)"

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
# The container log of a failing image is shown where it fails (prove_image).
finish() {
  echo "image-test: $passed passed, $failed failed"
  ((failed)) && exit 1
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
say "bootstrapping the base images from $mirror (debootstrap minbase; + openjdk-17-jre-headless, + a Java >= 25 runtime)"
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
# /proc and /sys of the rootfs off again. A package's trigger may leave a process in the chroot for a moment (seen
# on a loaded machine after openjdk-17-jre-headless: "umount: …/proc: target is busy"); a lazy unmount then detaches
# them at once, so the rootfs is tarred without them either way.
unmount_pseudo() {
  local m
  for m in "$rootfs/sys" "$rootfs/proc"; do
    umount "$m" 2>/dev/null || { sleep 2; umount "$m" 2>/dev/null; } || umount -l "$m"
  done
}
# A clean environment in the chroot: this script's TMPDIR (and anything else of the host's) does not exist there.
in_chroot() {
  chroot "$rootfs" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
    DEBIAN_FRONTEND=noninteractive /bin/sh -c "apt-get update -qq && apt-get install -y -qq --no-install-recommends $* \
      && apt-get clean && rm -rf /var/lib/apt/lists/*" >>"$work/chroot-install.log" 2>&1 ||
    { tail -n 30 "$work/chroot-install.log" >&2; die "installing $* in the rootfs failed"; }
}
import_rootfs() { # import_rootfs <image> [extra --change ...]
  local target="$1"
  shift
  tar -C "$rootfs" --numeric-owner -c . |
    pm import --change 'ENV LANG=C.UTF-8' "$@" - "$target" >"$work/import.log" 2>&1 ||
    { cat "$work/import.log" >&2; die "podman import of the rootfs failed"; }
}
in_chroot ca-certificates
unmount_pseudo
rm -f "$rootfs/usr/sbin/policy-rc.d" "$rootfs/etc/resolv.conf"

# The Java >= 25 base: the same rootfs with a runtime made from this machine's JDK >= 25 (no registry to pull one
# from): jlink'd to the modules a Spring Boot worker uses (~100 MB), or the whole JDK when it cannot link.
jdk25="${IMAGE_JDK25:-}"
if [[ -z "$jdk25" ]]; then
  java25="$("$repo/bin/reaper" which-java 2>/dev/null || true)"
  [[ -n "$java25" ]] && jdk25="$(dirname "$(dirname "$(readlink -f "$java25")")")"
fi
[[ "$jdk25" == none ]] && jdk25=""
jdk25_version=""
if [[ -n "$jdk25" ]]; then
  jdk25_version="$(sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$jdk25/release" 2>/dev/null || true)"
  [[ "$jdk25_version" =~ ^[0-9]+$ ]] && ((jdk25_version >= 25)) || jdk25=""
fi
if [[ -n "$jdk25" ]]; then
  runtime="$rootfs/opt/java/openjdk"
  mkdir -p "$rootfs/opt/java"
  if [[ -x "$jdk25/bin/jlink" ]] && "$jdk25/bin/jlink" --add-modules \
      java.se,jdk.unsupported,jdk.management,jdk.crypto.cryptoki,jdk.naming.dns,jdk.zipfs,jdk.charsets,jdk.jfr,jdk.management.jfr,jdk.net \
      --strip-debug --no-header-files --no-man-pages --output "$runtime" >"$work/jlink.log" 2>&1; then
    how="jlink'd from $jdk25"
  else
    rm -rf "$runtime"
    cp -a "$jdk25" "$runtime"
    how="copied from $jdk25 (jlink failed or missing: $(tail -n 1 "$work/jlink.log" 2>/dev/null))"
  fi
  import_rootfs "$base_image25" \
    --change 'ENV PATH=/opt/java/openjdk/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'ENV JAVA_HOME=/opt/java/openjdk'
  rm -rf "$runtime"
  say "base image $base_image25: Java $("$jdk25/bin/java" -version 2>&1 | sed -n 's/.*version "\([^"]*\)".*/\1/p'), $how"
else
  say "no JDK >= 25 on this machine (or IMAGE_JDK25=none): only the Java 17 image is tested"
fi

cp /etc/resolv.conf "$rootfs/etc/resolv.conf"
printf '#!/bin/sh\nexit 101\n' >"$rootfs/usr/sbin/policy-rc.d"
chmod +x "$rootfs/usr/sbin/policy-rc.d"
mount -t proc proc "$rootfs/proc"
mount -t sysfs sysfs "$rootfs/sys"
in_chroot openjdk-17-jre-headless
unmount_pseudo
rm -f "$rootfs/usr/sbin/policy-rc.d" "$rootfs/etc/resolv.conf"
import_rootfs "$base_image" --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'
rm -rf --one-file-system "$rootfs"
say "base images ready in $(since "$t_base") s"

# --- 2. the images ---------------------------------------------------------------------------------------------
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
declare -A build_seconds=() image_bytes=() base_bytes=()
build_image() { # build_image <image> <base image>
  local image="$1" base="$2" t_build log="$work/build-${1##*:}.log"
  t_build="$(now)"
  say "building $image on $base (version $version, revision $revision)"
  if ! pm build --pull=never --network=host --layers=false -f "$containerfile" \
      --build-arg BASE_IMAGE="$base" --build-arg VERSION="$version" --build-arg REVISION="$revision" \
      --build-arg SOURCE="$source_url" -t "$image" "$context" >"$log" 2>&1; then
    tail -n 60 "$log" >&2
    die "image build of $image failed"
  fi
  build_seconds[$image]="$(since "$t_build")"
  image_bytes[$image]="$(pm image inspect --format '{{.Size}}' "$image")"
  base_bytes[$image]="$(pm image inspect --format '{{.Size}}' "$base")"
  say "$image built in ${build_seconds[$image]} s; $(grep -m 1 -E '^start-up cache for Java [0-9]+:' "$log" || true)"
}
images=("localhost/conference-room-reaper:test")
build_image "${images[0]}" "$base_image"
if [[ -n "$jdk25" ]]; then
  images+=("localhost/conference-room-reaper:test-jdk25")
  build_image "${images[1]}" "$base_image25"
fi

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
# Listening ports come from below the kernel's ephemeral range: a port there can be the local end of some client's
# connection, which a connect probe does not see and which makes the server's bind fail.
ephemeral_low=$(awk '{print $1}' /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || echo 32768)
free_port() {
  local p
  for p in $(shuf -i 10000-$((ephemeral_low > 11000 ? ephemeral_low - 1 : 65000)) -n 100); do
    if port_free "$p" && [[ "$p" != "${1:-}" ]]; then echo "$p"; return; fi
  done
  die "no free port found"
}
mkdir -p "$pgdir"
chown postgres "$pgdir"
runuser -u postgres -- "$pgbin/initdb" -D "$pgdir/data" -U postgres -A trust --no-sync >"$work/initdb.log" 2>&1 ||
  { cat "$work/initdb.log" >&2; die "initdb failed"; }
for attempt in 1 2 3; do # a port taken between the probe and the bind: another port
  pg_port="$(free_port)"
  rm -f "$pgdir/server.log" # each attempt's log alone: only this one's bind failure is retried
  runuser -u postgres -- "$pgbin/pg_ctl" -D "$pgdir/data" -l "$pgdir/server.log" -w \
    -o "-c listen_addresses=127.0.0.1 -p $pg_port -k $pgdir -c fsync=off" start >/dev/null && break
  grep -q "Address already in use" "$pgdir/server.log" && ((attempt < 3)) ||
    { cat "$pgdir/server.log" >&2; die "PostgreSQL did not start"; }
  say "port $pg_port taken meanwhile; trying another"
done
http_port="$(free_port "$pg_port")"
say "PostgreSQL $("$pgbin/postgres" -V | awk '{print $3}') on 127.0.0.1:$pg_port"
dbname=postgres # each image gets a database of its own, below
sql() { "$pgbin/psql" -X -q -At -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$pg_port" -U postgres -d "$dbname" -c "$1"; }
# The container's database settings, for `read -a`: -e NAME=value pairs.
db() { printf '%s ' -e "SPRING_DATASOURCE_URL=jdbc:postgresql://127.0.0.1:$pg_port/$dbname" -e SPRING_DATASOURCE_USERNAME=postgres; }
# How production runs it: read-only root, only /tmp writable, no capabilities, no privilege gain.
hardened=(--read-only --tmpfs /tmp --network=host --user 10001 --cap-drop=ALL --security-opt=no-new-privileges)

# Seconds from the container's start (podman's StartedAt) to the first "cycle completed" line in its log.
first_cycle_after_start() { # first_cycle_after_start <container> <fallback start time>
  local started_ns started first
  started_ns="$(pm inspect --format '{{.State.StartedAt.UnixNano}}' "$1" 2>/dev/null || true)"
  started="$(awk -v n="$started_ns" -v t="$2" 'BEGIN { if (n ~ /^[0-9]+$/ && n > 0) printf "%.3f", n / 1e9; else print t }')"
  pm logs "$1" >"$work/first-cycle.log" 2>&1 || true
  first="$(grep -m 1 '"message":"cycle completed"' "$work/first-cycle.log" |
    sed -n 's/.*"@timestamp":"\([^"]*\)".*/\1/p' || true)"
  [[ -n "$first" ]] || return 1
  awk -v a="$started" -v b="$(date -d "$first" +%s.%N)" 'BEGIN { printf "%.2f", b - a }'
}

# The runbook's on-call commands ("Where the commands run"): its two shell functions, taken from the runbook as
# written, run in the running worker's container. kubectl is replaced by what its two calls do there: `exec [-i]
# deploy/… -- <command>` becomes `podman exec [-i] <container> <command>`; `get secret …` prints the operator role's
# user name and a password (the test database trusts local connections, so only the user name matters; the audit
# row's database role proves it was used).
runbook="$repo/docs/runbooks/conference-room-reaper.md"
kubectl() {
  local interactive=() args=("$@") i
  if [[ " $* " == *" get secret "* ]]; then
    printf '%s\n%s\n' conference_reaper_operator not-checked
    return
  fi
  for i in "${!args[@]}"; do
    [[ "${args[$i]}" == -i ]] && interactive=(-i)
    if [[ "${args[$i]}" == -- ]]; then
      pm exec "${interactive[@]}" "$name" "${args[@]:$((i + 1))}"
      return
    fi
  done
  echo "test-image: kubectl $* is not a call the runbook's functions make" >&2
  return 2
}
prove_oncall_commands() { # prove_oncall_commands <label>; the worker container $name is running
  local label="$1" functions
  functions="$(sed -n '/^reaper() {$/,/^}$/p; /^reaper_operator() {$/,/^}$/p' "$runbook")"
  if ! grep -q '^reaper_operator() {$' <<<"$functions" || ! grep -q '^reaper() {$' <<<"$functions"; then
    fail "[$label] the runbook defines reaper() and reaper_operator() (Where the commands run)"
    return
  fi
  eval "$functions"
  # The operator role as ops/sql defines it (its grants follow the migrations).
  "$pgbin/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$pg_port" -U postgres -d "$dbname" \
    -f "$repo/ops/sql/least-privilege.sql" -f "$repo/ops/sql/least-privilege-grants.sql" >"$work/grants.log" 2>&1 ||
    { cat "$work/grants.log" >&2; fail "[$label] ops/sql's roles and grants apply"; return; }

  local status=0
  reaper status --json >"$work/oncall-status.out" 2>"$work/oncall-status.err" || status=$?
  check "[$label] the runbook's 'reaper status --json' in the worker's container exits 0 ($status)" test "$status" -eq 0
  check "[$label] its stdout is the status document (phases)" \
    awk 'NR == 1 && /^\{/ { first = 1 } /"phases"/ { phases = 1 } END { exit !(first && phases) }' "$work/oncall-status.out"
  status=0
  reaper_operator pause --phase stale-live --reason "image test" --for 10m \
    >"$work/oncall-pause.out" 2>"$work/oncall-pause.err" || status=$?
  check "[$label] the runbook's 'reaper_operator pause' exits 0 ($status)" test "$status" -eq 0
  check "[$label] the pause's audit row names the operator role and the actor" test \
    "$(sql "SELECT db_role || ' ' || actor FROM messenger.conference_reaper_audit WHERE action = 'pause'")" \
    = "conference_reaper_operator $USER"
  status=0
  reaper_operator resume --phase stale-live >"$work/oncall-resume.out" 2>"$work/oncall-resume.err" || status=$?
  check "[$label] the runbook's 'reaper_operator resume' exits 0 ($status)" test "$status" -eq 0
  if ((failed)); then
    sed 's/^/  | /' "$work"/oncall-*.out "$work"/oncall-*.err >&2
  fi
}

# --- 4. each image: the static checks, migrate, the cache, the worker, SIGTERM ---------------------------------
declare -A figures=()
prove_image() { # prove_image <image>
  local image="$1" kind cache_file db_env
  local label="${image##*:}" failed_before="$failed"
  say "--- $image"
  dbname=postgres
  sql "CREATE DATABASE reaper_${label//-/_}"
  dbname="reaper_${label//-/_}"
  read -r -a db_env <<<"$(db)"
  # What the training chose: the @argument file the ENTRYPOINT reads.
  kind=cds cache_file=/app/reaper.jsa
  if pm run --rm --read-only --network=none --entrypoint cat "$image" /app/jvm-cache.args | grep -q -- '-XX:AOTCache='; then
    kind=aot cache_file=/app/reaper.aot
  fi

  check "[$label] image runs as uid 10001 by default" test "$(pm image inspect --format '{{.Config.User}}' "$image")" = 10001
  check "[$label] id -u inside the container is 10001" \
    test "$(pm run --rm --read-only --network=none --entrypoint id "$image" -u)" = 10001
  check "[$label] the revision label is the commit" \
    test "$(pm image inspect --format '{{index .Labels "org.opencontainers.image.revision"}}' "$image")" = "$revision"
  check "[$label] the version label is the project version ($version)" \
    test "$(pm image inspect --format '{{index .Labels "org.opencontainers.image.version"}}' "$image")" = "$version"
  check "[$label] the final image holds no PostgreSQL" pm run --rm --read-only --network=none --entrypoint /bin/sh "$image" \
    -c 'test ! -e /usr/lib/postgresql && test ! -e /usr/share/postgresql-common && ! command -v postgres'
  check "[$label] /app holds the unpacked jar, lib/ and the start-up cache $cache_file" pm run --rm --read-only \
    --network=none --entrypoint /bin/sh "$image" \
    -c "test -s /app/conference-room-reaper.jar && test -d /app/lib && test -s $cache_file"
  if [[ "$label" == *jdk25 ]]; then
    check "[$label] a Java >= 25 base gets the AOT cache ($kind)" test "$kind" = aot
  fi

  if pm run --rm "${hardened[@]}" "${db_env[@]}" "$image" migrate >"$work/migrate.out" 2>"$work/migrate.err"; then
    pass "[$label] migrate exits 0 on a read-only root"
  else
    fail "[$label] migrate exits 0 on a read-only root"
    sed 's/^/  | /' "$work/migrate.out" "$work/migrate.err" >&2
  fi
  check "[$label] migrate created messenger.conference_sessions" \
    test "$(sql "SELECT to_regclass('messenger.conference_sessions') IS NOT NULL")" = t
  # The documented form without Kubernetes (README, runbook): the image's entrypoint with a command.
  local status_exit=0
  pm run --rm "${hardened[@]}" "${db_env[@]}" "$image" status --json >"$work/run-status.out" 2>"$work/run-status.err" ||
    status_exit=$?
  check "[$label] 'podman run … <image> status --json' exits 0 ($status_exit) with the status document" \
    awk -v rc="$status_exit" 'NR == 1 && /^\{/ { first = 1 } /"phases"/ { phases = 1 } END { exit !(rc == 0 && first && phases) }' \
    "$work/run-status.out"

  # The deployment docs size the heap with JAVA_TOOL_OPTIONS (ops/kubernetes/README.md): a value set at run time
  # replaces the image's default list. The JVM echoes what it picked up on stderr; MaxHeapSize proves it took effect.
  pm run --rm "${hardened[@]}" "${db_env[@]}" \
    -e "JAVA_TOOL_OPTIONS=-Xms64m -Xmx200m -XX:+UseSerialGC -XX:MaxMetaspaceSize=128m -Xss512k -XX:+PrintFlagsFinal" \
    "$image" migrate >"$work/heap.out" 2>"$work/heap.err" || true
  check "[$label] JAVA_TOOL_OPTIONS set at run time sizes the heap (-Xmx200m)" \
    grep -qE 'MaxHeapSize += 209715200 ' "$work/heap.out"

  # The cache is really used: -Xshare:on (AppCDS) or -XX:AOTMode=on (AOT cache) make the JVM refuse to start on a
  # cache it cannot map, and every application class it loads from the cache is counted. _JAVA_OPTIONS comes after
  # the command line.
  local strict=-Xshare:on
  [[ "$kind" == aot ]] && strict=-XX:AOTMode=on
  pm run --rm "${hardened[@]}" "${db_env[@]}" -e "_JAVA_OPTIONS=$strict -Xlog:class+load=info:stderr" "$image" \
    migrate >/dev/null 2>"$work/cds.err" || true
  local cached
  cached="$(grep -cE '\] (org\.springframework|pin\.messenger)\.[^ ]* source: shared objects file' "$work/cds.err" || true)"
  check "[$label] the start-up cache ($kind) is used: $cached Spring and reaper classes from it" test "$cached" -gt 1000

  # Informational: what the cache buys. Wall time of a start of `run` up to a refreshed context (then it exits),
  # podman's own overhead included, with the cache and with it off.
  local off=-Xshare:off
  [[ "$kind" == aot ]] && off=-XX:AOTMode=off
  refresh_time() {
    local t0
    t0="$(now)"
    pm run --rm "${hardened[@]}" "${db_env[@]}" -e "_JAVA_OPTIONS=-Dspring.context.exit=onRefresh $1" "$image" \
      run --server.port=0 >/dev/null 2>&1 || { echo "n/a"; return; }
    since "$t0"
  }
  local refresh_cache refresh_off
  refresh_cache="$(refresh_time "")"
  refresh_off="$(refresh_time "$off")"

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

  local t_run ended=0
  t_run="$(now)"
  pm run -d --name "$name" "${hardened[@]}" "${db_env[@]}" "$image" \
    run --reaper.polling-interval=2s --server.port="$http_port" >/dev/null
  for _ in $(seq 1 60); do
    ended="$(sql "SELECT count(*) FROM messenger.conference_sessions WHERE status = 'Ended' AND end_reason IS NOT NULL")"
    [[ "$ended" -ge "$due_rooms" ]] && break
    [[ "$(pm inspect --format '{{.State.Running}}' "$name")" == true ]] || break
    sleep 1
  done
  check "[$label] the $due_rooms due rooms are Ended ($ended)" test "$ended" -eq "$due_rooms"
  check "[$label] the occupied room is still Active" \
    test "$(sql "SELECT count(*) FROM messenger.conference_sessions WHERE status = 'Active'")" -eq 1
  check "[$label] an integration event per closed room is in the outbox" \
    test "$(sql "SELECT count(*) FROM messenger.integration_outbox")" -eq "$due_rooms"

  local ready=""
  for _ in $(seq 1 20); do
    ready="$(curl -fsS --max-time 2 "http://127.0.0.1:$http_port/actuator/health/readiness" 2>/dev/null || true)"
    [[ "$ready" == *'"UP"'* ]] && break
    sleep 0.5
  done
  check "[$label] readiness answers UP ($ready)" grep -q '"status":"UP"' <<<"$ready"

  prove_oncall_commands "$label"

  local first_cycle_seconds
  if first_cycle_seconds="$(first_cycle_after_start "$name" "$t_run")"; then
    pass "[$label] first 'cycle completed' ${first_cycle_seconds} s after the container started"
  else
    first_cycle_seconds="n/a"
    fail "[$label] a 'cycle completed' log line"
  fi
  snapshot_log
  local started_line
  started_line="$(grep -m 1 -o '"message":"Started [^"]*"' "$container_log" || true)"

  local t_stop stop_seconds exit_code running
  t_stop="$(now)"
  pm kill --signal TERM "$name" >/dev/null
  timeout "$((grace_seconds + 5))" podman "${pm_args[@]}" wait "$name" >/dev/null 2>&1 || true
  stop_seconds="$(since "$t_stop")"
  exit_code="$(pm inspect --format '{{.State.ExitCode}}' "$name")"
  running="$(pm inspect --format '{{.State.Running}}' "$name")"
  check "[$label] stopped ${stop_seconds} s after SIGTERM, within the ${grace_seconds} s grace period" \
    awk -v s="$stop_seconds" -v g="$grace_seconds" -v r="$running" 'BEGIN { exit !(r == "false" && s < g) }'
  # The JVM ends a SIGTERM-initiated shutdown with 128 + 15 once its shutdown hooks (Spring's context close) are done.
  check "[$label] exit code after SIGTERM is 143 ($exit_code)" test "$exit_code" = 143
  snapshot_log
  check "[$label] the log shows the graceful stop ('reaper loop stopped')" log_has '"message":"reaper loop stopped"'
  check "[$label] no cycle had to be interrupted on the way down" log_lacks 'cycle did not stop in time'
  if ((failed > failed_before)); then
    show_log
  fi
  pm rm -f -t 0 "$name" >/dev/null 2>&1 || true

  mb() { awk -v b="$1" 'BEGIN { printf "%.0f MB", b / 1e6 }'; }
  figures[$image]="image $(mb "${image_bytes[$image]}") (base $(mb "${base_bytes[$image]}")); build ${build_seconds[$image]} s;
    start-up cache $kind; start to first 'cycle completed' ${first_cycle_seconds} s;
    start to a refreshed context ${refresh_cache} s with the cache, ${refresh_off} s without;
    stop after SIGTERM ${stop_seconds} s (exit $exit_code); ${started_line#\"message\":}"
}
for image in "${images[@]}"; do prove_image "$image"; done

# --- 5. container start to first cycle, alternating ----------------------------------------------------------------
# Each round starts every image once (order alternating), on its own database, and times podman's StartedAt to the
# first "cycle completed" log line; the container is then stopped with SIGTERM.
declare -A start_times=()
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {if (NR) print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
for round in $(seq 1 "$start_rounds"); do
  order=("${images[@]}")
  if ((round % 2 == 0)); then order=($(printf '%s\n' "${images[@]}" | tac)); fi
  for image in "${order[@]}"; do
    label="${image##*:}"
    dbname="reaper_${label//-/_}"
    read -r -a db_env <<<"$(db)"
    t_run="$(now)"
    pm run -d --name "$name" "${hardened[@]}" "${db_env[@]}" "$image" run --server.port=0 >/dev/null
    s=""
    for _ in $(seq 1 300); do
      if s="$(first_cycle_after_start "$name" "$t_run")"; then break; fi
      sleep 0.2
    done
    pm rm -f -t 10 "$name" >/dev/null 2>&1 || true
    [[ -n "$s" ]] || { fail "[$label] round $round: no 'cycle completed' within a minute"; continue; }
    start_times[$image]+="$s "
  done
done

# --- figures --------------------------------------------------------------------------------------------------
for image in "${images[@]}"; do
  say "figures [$image]: ${figures[$image]}"
  if ((start_rounds)); then
    # shellcheck disable=SC2086
    say "  container start to first 'cycle completed', $start_rounds rounds: ${start_times[$image]:-none}s," \
      "median $(median ${start_times[$image]:-}) s"
  fi
done
say "whole script $(since "$t_script") s; load average $(cut -d' ' -f1-3 /proc/loadavg)"
finish
