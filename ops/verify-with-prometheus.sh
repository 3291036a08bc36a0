#!/usr/bin/env bash
# Proves the ops artefacts against a real worker and a real Prometheus (everything on 127.0.0.1):
#   a) promtool check rules + promtool test rules
#   b) starts the development worker jar (embedded PostgreSQL, polling every 2 s) on a free loopback port
#   c) promtool check metrics on a scrape of /actuator/prometheus
#   d) starts Prometheus (scrape every 2 s, the rules file loaded) on a free loopback port; waits for target "up"
#   e) /api/v1/rules: every rule loaded and evaluated with health "ok"
#   f) every expr of the Grafana dashboard (Grafana variables substituted) through /api/v1/query: status success
#      and a non-empty result; every metric name used by the rules and the dashboard exists in the scrape
#   g) the healthy worker raises no ConferenceReaper alert; after SIGTERM to the worker,
#      ConferenceReaperNotRunning becomes active (pending) in Prometheus
# Both processes are stopped on exit. Usage:
#   ops/verify-with-prometheus.sh [path/to/conference-room-reaper.jar]   (default: the development jar, reaper-devtools/target/conference-room-reaper-dev.jar,
#   whose embedded PostgreSQL default this check uses)
# Environment: PROMETHEUS (default /usr/bin/prometheus), PROMTOOL (default promtool), KEEP_TMP=1 keeps the temp dir,
# SKIP_RULE_TESTS=1 leaves out `promtool test rules` in a) (~13 s of CPU) when the caller runs them itself, as the test
# suite does (AlertRulesTest runs them, PrometheusIT runs this script).
set -euo pipefail

started=$(date +%s)
ops_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo_dir=$(cd "$ops_dir/.." && pwd)
rules="$ops_dir/prometheus/conference-room-reaper.rules.yml"
rules_test="$ops_dir/prometheus/conference-room-reaper.rules.test.yml"
dashboard="$ops_dir/grafana/conference-room-reaper.json"
jar=${1:-$repo_dir/reaper-devtools/target/conference-room-reaper-dev.jar}
[[ "$jar" = /* ]] || jar="$PWD/$jar"
prometheus_bin=${PROMETHEUS:-/usr/bin/prometheus}
promtool_bin=${PROMTOOL:-promtool}
job=conference-room-reaper

log() { printf '[verify %3ss] %s\n' "$(($(date +%s) - started))" "$*"; }
die() { printf '[verify] FAIL: %s\n' "$*" >&2; exit 1; }

for f in "$rules" "$rules_test" "$dashboard"; do [[ -f $f ]] || die "missing $f"; done
[[ -f $jar ]] || die "worker jar not found: $jar (build it, or pass its path as the first argument)"
[[ -x $prometheus_bin ]] || die "prometheus not found at $prometheus_bin"
command -v "$promtool_bin" >/dev/null || die "promtool not found"
command -v java >/dev/null || die "java not found"
command -v python3 >/dev/null || die "python3 not found"
command -v curl >/dev/null || die "curl not found"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/reaper-verify.XXXXXX")
worker_pid=""
prom_pid=""
ok=0

# Stops a process we started: SIGTERM, wait up to $2 seconds, then SIGKILL.
stop_pid() {
  local pid=$1 wait_s=$2 i
  [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null || return 0
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < wait_s * 10; i++)); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

# The embedded PostgreSQL is not a child of the JVM's process group; if the JVM had to be killed, stop the
# postmaster it left behind (by the pid in its own data dir), with a fast shutdown.
stop_orphaned_postgres() {
  local pidfile="$tmp/worker/pgdata/postmaster.pid" pg i
  [[ -f $pidfile ]] || return 0
  pg=$(head -n 1 "$pidfile" 2>/dev/null || true)
  [[ $pg =~ ^[0-9]+$ ]] && kill -0 "$pg" 2>/dev/null || return 0
  kill -INT "$pg" 2>/dev/null || true
  for ((i = 0; i < 100; i++)); do kill -0 "$pg" 2>/dev/null || return 0; sleep 0.1; done
  kill -KILL "$pg" 2>/dev/null || true
}

cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  stop_pid "$worker_pid" 40
  stop_orphaned_postgres
  stop_pid "$prom_pid" 15
  if [[ $ok -ne 1 ]]; then
    for f in "$tmp/worker.log" "$tmp/prometheus.log"; do
      [[ -s $f ]] && { echo "----- last lines of $f" >&2; tail -n 25 "$f" >&2; }
    done
    echo "[verify] logs and data kept in $tmp" >&2
  elif [[ ${KEEP_TMP:-0} == 1 ]]; then
    echo "[verify] temp dir kept: $tmp"
  else
    rm -rf "$tmp"
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# curl that never goes through a proxy (all targets are loopback)
lcurl() { curl --noproxy '*' -fsS --max-time 5 "$@"; }

# ---------------------------------------------------------------------------------------------------------------
# a) promtool
# ---------------------------------------------------------------------------------------------------------------
log "a) promtool check rules / test rules"
check_out=$("$promtool_bin" check rules "$rules" 2>&1) || { echo "$check_out" >&2; die "promtool check rules"; }
rules_found=$(sed -n 's/.*SUCCESS: \([0-9]*\) rules found.*/\1/p' <<<"$check_out")
if [[ ${SKIP_RULE_TESTS:-0} == 1 ]]; then
  log "   check rules: $rules_found rules; test rules: not run here (SKIP_RULE_TESTS=1)"
  rule_tests="not run here (SKIP_RULE_TESTS=1)"
else
  test_out=$(cd "$ops_dir/prometheus" && "$promtool_bin" test rules "$(basename "$rules_test")" 2>&1) \
    || { echo "$test_out" >&2; die "promtool test rules"; }
  alert_tests=$(grep -c 'alertname:' "$rules_test" || true)
  expr_tests=$(grep -c -- '- expr:' "$rules_test" || true)
  rule_tests="SUCCESS ($alert_tests alert assertions, $expr_tests expression assertions)"
  log "   check rules: $rules_found rules; test rules: $rule_tests"
fi

# ---------------------------------------------------------------------------------------------------------------
# b) the worker
# ---------------------------------------------------------------------------------------------------------------
worker_port=$(free_port)
mkdir -p "$tmp/worker"
log "b) starting worker $jar on 127.0.0.1:$worker_port (polling 2s, embedded PostgreSQL in $tmp/worker)"
# A clean environment: no SPRING_DATASOURCE_*/SPRING_KAFKA_*/REAPER_* from the caller can point the worker at a
# real database, broker or media stack. With none set it uses an embedded PostgreSQL and leaves relay and
# recorder dispatch off.
(
  cd "$tmp/worker"
  exec env -i PATH="$PATH" HOME="$tmp/worker" LANG=C.UTF-8 ${JAVA_HOME:+JAVA_HOME="$JAVA_HOME"} \
    java -jar "$jar" run \
    --server.address=127.0.0.1 --server.port="$worker_port" \
    --reaper.polling-interval=2s \
    --reaper.embedded.data-dir="$tmp/worker/pgdata"
) >"$tmp/worker.log" 2>&1 &
worker_pid=$!
base="http://127.0.0.1:$worker_port"
for ((i = 0; ; i++)); do
  kill -0 "$worker_pid" 2>/dev/null || die "the worker exited during start-up"
  health=$(lcurl "$base/actuator/health" 2>/dev/null || true)
  [[ $health == *'"status":"UP"'* ]] && break
  ((i < 180)) || die "worker not healthy after 90 s (last: ${health:-no answer})"
  sleep 0.5
done
log "   worker healthy: $health"

# ---------------------------------------------------------------------------------------------------------------
# c) promtool check metrics
# ---------------------------------------------------------------------------------------------------------------
log "c) promtool check metrics on $base/actuator/prometheus"
sleep 2 # at least one cycle after start-up
lcurl "$base/actuator/prometheus" >"$tmp/scrape.txt" || die "scrape of /actuator/prometheus failed"
lint=$("$promtool_bin" check metrics <"$tmp/scrape.txt" 2>&1) || { echo "$lint" >&2; die "promtool check metrics"; }
reaper_series=$(grep -c '^messenger_conf_reaper_' "$tmp/scrape.txt" || true)
((reaper_series > 0)) || die "no messenger_conf_reaper_* series in the scrape"
log "   metrics lint clean; $reaper_series messenger_conf_reaper_* samples"

# ---------------------------------------------------------------------------------------------------------------
# d) Prometheus
# ---------------------------------------------------------------------------------------------------------------
prom_port=$(free_port)
prom="http://127.0.0.1:$prom_port"
cat >"$tmp/prometheus.yml" <<EOF
global:
  scrape_interval: 2s
  scrape_timeout: 2s
  evaluation_interval: 2s
rule_files:
  - $rules
scrape_configs:
  - job_name: $job
    metrics_path: /actuator/prometheus
    static_configs:
      - targets: ["127.0.0.1:$worker_port"]
EOF
log "d) starting $prometheus_bin on 127.0.0.1:$prom_port"
"$prometheus_bin" \
  --config.file="$tmp/prometheus.yml" \
  --storage.tsdb.path="$tmp/prometheus-data" \
  --web.listen-address="127.0.0.1:$prom_port" \
  >"$tmp/prometheus.log" 2>&1 &
prom_pid=$!

# Small JSON helpers for the HTTP API (python3: no jq needed; proxies ignored).
api() { # api PATH [python expression over `d`, the decoded JSON]
  python3 - "$prom$1" "${2:-d}" <<'PY'
import json, sys, urllib.request
opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
d = json.load(opener.open(sys.argv[1], timeout=5))
r = eval(sys.argv[2], {"d": d})
print(r if isinstance(r, str) else json.dumps(r))
PY
}

for ((i = 0; ; i++)); do
  kill -0 "$prom_pid" 2>/dev/null || die "prometheus exited during start-up"
  state=$(api /api/v1/targets "','.join(t['health'] for t in d['data']['activeTargets'] if t['labels'].get('job') == '$job')" 2>/dev/null || true)
  [[ $state == up ]] && break
  ((i < 60)) || die "target not up after 30 s (state: ${state:-none})"
  sleep 0.5
done
log "   target job=$job is up"

# ---------------------------------------------------------------------------------------------------------------
# e) rules loaded and healthy
# ---------------------------------------------------------------------------------------------------------------
log "e) /api/v1/rules"
expected_rules=$(grep -cE '^\s*- (alert|record):' "$rules")
for ((i = 0; ; i++)); do
  summary=$(api /api/v1/rules "' '.join([str(len(d['data']['groups'])), str(sum(len(g['rules']) for g in d['data']['groups'])), str(sum(r['health'] == 'ok' for g in d['data']['groups'] for r in g['rules'])), str(sum(r['type'] == 'alerting' for g in d['data']['groups'] for r in g['rules'])), str(sum(r['type'] == 'recording' for g in d['data']['groups'] for r in g['rules']))])")
  read -r groups total healthy alerting recording <<<"$summary"
  ((total == expected_rules && healthy == total)) && break
  if ((i >= 40)); then
    api /api/v1/rules "[(r['name'], r['health'], r.get('lastError', '')) for g in d['data']['groups'] for r in g['rules'] if r['health'] != 'ok']" >&2
    die "rules: $healthy/$total healthy, $expected_rules expected in $rules"
  fi
  sleep 0.5
done
log "   $groups group(s), $total rules ($alerting alerting, $recording recording), all health=ok"

# ---------------------------------------------------------------------------------------------------------------
# f) dashboard queries and metric names
# ---------------------------------------------------------------------------------------------------------------
log "f) Grafana dashboard queries through /api/v1/query"
sleep 4 # a few more scrapes so that 1m rate windows hold >= 2 samples
lcurl "$base/actuator/prometheus" >"$tmp/scrape.txt"
dash_result=$(python3 - "$prom" "$dashboard" "$rules" "$tmp/scrape.txt" "$job" <<'PY'
import json, re, sys, urllib.parse, urllib.request

prom, dashboard_path, rules_path, scrape_path, job = sys.argv[1:]
opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
failures = []

# Every target expr of every panel, rows' nested panels included.
def panels(node):
    for p in node.get("panels", []):
        yield p
        yield from panels(p)

dash = json.load(open(dashboard_path))
exprs = [(p.get("title", "?"), t["expr"]) for p in panels(dash) for t in p.get("targets", []) if t.get("expr")]
if not exprs:
    failures.append("no expr found in the dashboard")

subst = {
    "__rate_interval": "1m", "__interval": "30s", "__interval_ms": "30000", "__range": "5m", "__range_s": "300",
    "__range_ms": "300000", "job": job, "instance": ".*",
}
def concrete(expr):
    def one(m):
        name = m.group(1) or m.group(2) or m.group(3)
        if name not in subst:
            raise KeyError(name)
        return subst[name]
    return re.sub(r"\$\{(\w+)(?::\w+)?\}|\[\[(\w+)\]\]|\$(\w+)", one, expr)

with_data = 0
for title, expr in exprs:
    try:
        q = concrete(expr)
    except KeyError as e:
        failures.append(f"{title}: unknown Grafana variable ${e.args[0]} in {expr}")
        continue
    data = urllib.parse.urlencode({"query": q}).encode()
    try:
        body = json.load(opener.open(prom + "/api/v1/query", data=data, timeout=10))
    except urllib.error.HTTPError as e:
        body = json.load(e)
    if body.get("status") != "success":
        failures.append(f"{title}: {body.get('errorType')}: {body.get('error')} <- {q}")
    elif not body["data"]["result"]:
        failures.append(f"{title}: empty result (wrong metric or label?) <- {q}")
    else:
        with_data += 1

# Every metric name the rules and the dashboard use must be exported by the worker.
exported = set()
for line in open(scrape_path):
    if line and not line.startswith("#"):
        exported.add(re.split(r"[{ ]", line, 1)[0])
used = set()
name_re = re.compile(r"(?<![\w:])messenger_conf_reaper_[a-z0-9_]+")
used |= set(name_re.findall(open(rules_path).read()))
for _, expr in exprs:
    used |= set(name_re.findall(expr))
for name in sorted(used - exported):
    failures.append(f"metric {name} is used but not exported by the worker")

for f in failures:
    print("FAIL " + f, file=sys.stderr)
print(f"{len(exprs)} {with_data} {len(used)} {len(failures)}")
PY
) || die "dashboard check crashed"
read -r n_exprs n_data n_names n_fail <<<"$dash_result"
((n_fail == 0)) || die "$n_fail dashboard/metric-name problem(s), see above"
log "   $n_exprs/$n_exprs queries status=success, $n_data with data; $n_names metric names used, all exported"

# ---------------------------------------------------------------------------------------------------------------
# g) alerts against the live worker: none while healthy; NotRunning once it is stopped
# ---------------------------------------------------------------------------------------------------------------
log "g) alerts: healthy worker, then worker stopped"
active_alerts() { api /api/v1/alerts "' '.join(sorted(a['labels']['alertname'] + ':' + a['state'] for a in d['data']['alerts'] if a['labels']['alertname'].startswith('ConferenceReaper')))"; }
for ((i = 0; ; i++)); do
  active=$(active_alerts)
  [[ -z $active ]] && break
  ((i < 20)) || die "alerts active for a healthy worker: $active"
  sleep 0.5
done
log "   healthy worker: no ConferenceReaper alert pending or firing"
stopped_at=$(date +%s)
stop_pid "$worker_pid" 40
worker_pid=""
# A clean stop: the embedded database outlives the pool and the runner's last heartbeat (it used to be stopped first
# by the library's own shutdown hook, and every Ctrl-C logged "runner heartbeat not written" and pool warnings).
if grep -q 'runner heartbeat not written' "$tmp/worker.log"; then
  die "the worker's last heartbeat failed at SIGTERM: its embedded database stopped before it (see $tmp/worker.log)"
fi
stop_orphaned_postgres
for ((i = 0; ; i++)); do
  active=$(active_alerts)
  [[ $active == *ConferenceReaperNotRunning:* ]] && break
  ((i < 60)) || die "ConferenceReaperNotRunning not active 30 s after the worker stopped (active: ${active:-none})"
  sleep 0.5
done
log "   worker stopped: ConferenceReaperNotRunning ${active##*ConferenceReaperNotRunning:} after $(($(date +%s) - stopped_at)) s"

ok=1
elapsed=$(($(date +%s) - started))
echo
echo "PASS (${elapsed}s)"
echo "  promtool check rules : $rules_found rules"
echo "  promtool test rules  : $rule_tests"
echo "  promtool check metrics: clean ($reaper_series messenger_conf_reaper_* samples)"
echo "  prometheus rules     : $total/$total health=ok ($alerting alerting, $recording recording) in $groups group(s)"
echo "  dashboard queries    : $n_exprs/$n_exprs success, $n_data with data; $n_names metric names all exported"
echo "  live alerts          : none for the healthy worker; ConferenceReaperNotRunning active after stop"
