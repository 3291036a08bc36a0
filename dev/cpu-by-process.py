#!/usr/bin/env python3
"""Runs a command in a cgroup of its own and prints where its CPU went, by kind of process.

    dev/cpu-by-process.py ./mvnw -B verify -pl reaper-it -am -Dtest=NONE \
        -Dsurefire.failIfNoSpecifiedTests=false -Dreaper.it.forks=1

Every 0.5 s it reads user + system time of each process in the group from /proc (a process is
known by its pid and start time); at the end it prints, per kind, the CPU seen, how many processes
and the mean per process. Kinds: the jar's JVMs by command (jar:status, jar:run-once, ...; a
bin/reaper that had not yet exec'ed its JVM when first seen counts as launcher:<command>), the test
JVMs, Maven, PostgreSQL and anything else by its executable. The group's own counter gives the
total; "not attributed" is what ended between two samples (short processes, the last half second
of each). Needs root and cgroup v1 cpuacct or cgroup v2, as dev/cpu-of.sh. docs/benchmarks.md
("The test command") quotes it.
"""
import collections
import os
import re
import subprocess
import sys
import time


def cgroup():
    name = "cpu-by-process-%d" % os.getpid()
    if os.path.isdir("/sys/fs/cgroup/cpuacct"):
        path = "/sys/fs/cgroup/cpuacct/" + name
        os.mkdir(path)
        return path, lambda: int(open(path + "/cpuacct.usage").read()) / 1e9
    if os.path.isfile("/sys/fs/cgroup/cgroup.controllers"):
        path = "/sys/fs/cgroup/" + name
        os.mkdir(path)

        def usage():
            for line in open(path + "/cpu.stat"):
                if line.startswith("usage_usec"):
                    return int(line.split()[1]) / 1e6
            return 0.0

        return path, usage
    sys.exit("cpu-by-process: no cgroup v1 cpuacct or cgroup v2 hierarchy at /sys/fs/cgroup")


def kind(cmd):
    words = cmd.split()
    m = re.search(r"bin/reaper (\S+)", cmd)
    if m and words and words[0].endswith("bash"):
        return "launcher:" + m.group(1)
    m = re.search(r"conference-room-reaper(?:-dev)?\.jar (\S+)", cmd)
    if m:
        return "jar:" + m.group(1)
    if "surefire" in cmd or "failsafe" in cmd:
        return "test JVM"
    if "plexus-classworlds" in cmd:
        return "maven"
    if "postgres" in cmd or "initdb" in cmd:
        return "postgresql"
    return os.path.basename(words[0]) if words else "?"


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: dev/cpu-by-process.py <command> [args...]")
    group, usage = cgroup()
    hz = os.sysconf("SC_CLK_TCK")
    start = time.time()
    child = subprocess.Popen(
        sys.argv[1:], preexec_fn=lambda: open(group + "/cgroup.procs", "w").write(str(os.getpid()))
    )
    seen = {}
    busy = []  # cores busy per 10 s window, from the group's own counter
    window_start, window_usage = start, usage()
    while True:
        done = child.poll() is not None
        now = time.time()
        if now - window_start >= 10 or done:
            used = usage()
            if now > window_start:
                busy.append((used - window_usage) / (now - window_start))
            window_start, window_usage = now, used
        for pid in open(group + "/cgroup.procs").read().split():
            try:
                stat = open("/proc/%s/stat" % pid).read()
                fields = stat[stat.rfind(")") + 2 :].split()
                cpu = (int(fields[11]) + int(fields[12])) / hz
                key = (pid, fields[19])
                if key not in seen:
                    cmd = open("/proc/%s/cmdline" % pid).read().replace("\0", " ")
                    seen[key] = [kind(cmd), cpu]
                else:
                    seen[key][1] = cpu
            except (OSError, IndexError, ValueError):
                pass
        if done:
            break
        time.sleep(0.5)
    wall = time.time() - start
    total = usage()
    cpu = collections.Counter()
    count = collections.Counter()
    for k, c in seen.values():
        cpu[k] += c
        count[k] += 1
    print("cpu-by-process: exit %d, wall %.1f s, cpu %.1f s" % (child.returncode, wall, total))
    for k, c in cpu.most_common():
        if c >= 0.5:
            print("  %-32s %7.1f s  %4d processes  %5.2f s each" % (k, c, count[k], c / count[k]))
    print("  %-32s %7.1f s" % ("not attributed", total - sum(cpu.values())))
    print("cores busy, each 10 s from the start: " + " ".join("%.2f" % b for b in busy))
    for _ in range(50):
        try:
            os.rmdir(group)
            break
        except OSError:
            time.sleep(0.2)
    sys.exit(child.returncode)


if __name__ == "__main__":
    main()
