#!/usr/bin/python3
"""The stress run's measurements and checks (scripts/stress.sh; see
stress/README.md). Standard library only; reuses soak/check.py's metrics
parser and its local-store-vs-sink comparison.

    check.py watch PID SAMPLES CEILING_MIB
        Every 0.1 s appends "t rss_kb hwm_kb cpu_ticks" for PID to SAMPLES
        until PID exits. If its RSS passes CEILING_MIB it is killed
        (SIGKILL) to protect the machine and SAMPLES.killed records it.
    check.py balanced DIR METRICS_URL
        Exit 0 once the flood scenario's topics are drained: every message
        received is handled or counted as dropped or bad.
    check.py SCENARIO DIR
        Prints SCENARIO's figures beside their bounds and writes
        DIR/result.json (SCENARIO: flood, stall, amplify, pubupdate,
        diskfull, sigkill).
    check.py summary WORK
        Every WORK/*/result.json as one table; exit 1 if a scenario failed.
"""
import glob
import importlib.util
import json
import os
import re
import signal
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("soakcheck", os.path.join(HERE, "..", "soak", "check.py"))
soak = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(soak)

MIB = 1 << 20
SLACK = 256 * MIB  # the documented bound: ring budget + 256 MiB whatever one peer does


def proc_sample(pid):
    with open("/proc/%d/status" % pid) as f:
        st = dict(line.split(":", 1) for line in f if ":" in line)
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    if fields[0] == "Z":
        raise ProcessLookupError(pid)
    kb = lambda k: int(st.get(k, "0 kB").split()[0])  # noqa: E731
    return kb("VmRSS"), kb("VmHWM"), int(fields[11]) + int(fields[12])  # utime + stime


def watch(pid, out, ceiling_mib):
    with open(out, "a") as f:
        while True:
            try:
                rss, hwm, ticks = proc_sample(pid)
            except (OSError, ProcessLookupError, IndexError, ValueError):
                return 0
            f.write("%.3f %d %d %d\n" % (time.time(), rss, hwm, ticks))
            f.flush()
            if rss > ceiling_mib * 1024:
                with open(out + ".killed", "w") as k:
                    k.write("%.3f %d\n" % (time.time(), rss))
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
                return 0
            time.sleep(0.1)


def read_env(d):
    env = {}
    p = os.path.join(d, "run.env")
    if os.path.exists(p):
        with open(p) as f:
            for line in f:
                k, _, v = line.strip().partition("=")
                env[k] = v
    return env


def samples(path):
    out = []
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                t, rss, hwm, ticks = line.split()
                out.append((float(t), int(rss) * 1024, int(hwm) * 1024, int(ticks)))
    return out


def size(s):
    """A config size as edged config check prints it (256MiB, 4GiB, 1024)."""
    m = re.match(r"^\s*([\d.]+)\s*([KMGT]i?B|B)?\s*$", s)
    if not m:
        raise ValueError("size %r" % s)
    mult = {None: 1, "B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40,
            "KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12}[m.group(2)]
    return int(float(m.group(1)) * mult)


def metrics(d):
    p = os.path.join(d, "metrics-final.txt")
    return soak.metrics(p) if os.path.exists(p) and os.path.getsize(p) else {}


def by_topic(m, name, topic):
    return sum(v for lb, v in m.get(name, {}).items() if soak.label(lb, "topic") == topic)


class Result:
    def __init__(self, d, title):
        self.d, self.title, self.rows, self.ok = d, title, [], True

    def row(self, name, value, aim="", ok=None):
        self.rows.append((name, value, aim, "" if ok is None else ("PASS" if ok else "FAIL")))
        if ok is False:
            self.ok = False

    def memory(self, samples_file, bound, what="edged"):
        """Peak RSS (VmHWM, sampled every 0.1 s) against bound; a process
        killed at the safety ceiling fails with the ceiling as its figure."""
        ss = samples(os.path.join(self.d, samples_file))
        killed = os.path.join(self.d, samples_file + ".killed")
        if not ss:
            self.row("%s peak RSS" % what, "no samples (did it start?)", "bound %.0f MiB" % (bound / MIB), False)
            return None
        peak = max(s[2] for s in ss)
        if os.path.exists(killed):
            self.row("%s peak RSS" % what, ">= %.0f MiB: killed by the harness at its safety ceiling (%.1f x bound)"
                     % (peak / MIB, peak / bound), "<= %.0f MiB" % (bound / MIB), False)
        else:
            self.row("%s peak RSS" % what, "%.0f MiB (%.2f x bound)" % (peak / MIB, peak / bound),
                     "<= %.0f MiB" % (bound / MIB), peak <= bound)
        return ss

    def alive(self, env):
        code = env.get("EXIT", "")
        if env.get("STOP"):
            self.row("edged after SIGTERM", env["STOP"])
        if code not in ("", "running", "0"):
            self.row("edged exit", "exited by itself (%s) during the scenario; log %s" % (
                code, os.path.join(self.d, "logs")), "stays up", False)

    def save(self):
        with open(os.path.join(self.d, "result.json"), "w") as f:
            json.dump({"title": self.title, "rows": self.rows, "pass": self.ok}, f)
        print_table(self.title, self.rows, self.ok)
        return 0


def ring_bound(d):
    """ring.max_bytes x cameras + 256 MiB, from the effective config."""
    env = read_env(d)
    rb = size(soak.effective(d, "ring.max_bytes"))
    cams = int(env.get("CAMERAS", "1"))
    return rb * cams + SLACK, "ring.max_bytes %s x %d camera(s) + 256 MiB" % (soak.effective(d, "ring.max_bytes"), cams)


def flood(d):
    env, m = read_env(d), metrics(d)
    r = Result(d, "1. single-topic flood (%s KiB std_msgs/String + JointState, %s s)" % (
        env.get("FLOOD_KIB"), env.get("SECONDS")))
    bound, how = ring_bound(d)
    r.row("bound", "%.0f MiB" % (bound / MIB), how)
    r.memory("samples.tsv", bound)
    r.alive(env)
    sent = json.load(open(os.path.join(d, "stats.json"))) if os.path.exists(os.path.join(d, "stats.json")) else {}
    if not m:
        r.row("/metrics", "not read (edged was not running at the end)", "readable", False)
        return r.save()
    for role, topic, recv, drops, bad, handled, hname in flood_accounts(m, env):
        r.row("%s %s" % (role, topic), "sent %d, received %d, dropped (counted) %d, bad %d, %s %d" % (
            sent.get(topic, 0), recv, drops, bad, hname, handled))
        # No silent loss: every message the peer sent is handled, or counted
        # as dropped or bad, once the queues drained (the harness waits up
        # to 30 s after the flood for that).
        acc = handled + drops + bad
        refused = by_topic(m, "edged_topic_connection_errors_total", topic)
        if recv == 0:
            # Messages over the role's cap never reach capture: the
            # subscription closes the connection, counted per topic.
            r.row("  %s: oversized messages refused and counted" % role, "%d connections closed" % refused,
                  "edged_topic_connection_errors_total > 0", refused > 0)
            continue
        # The topic's drops include those of the subscription, before
        # capture received them: so every message the peer sent is
        # handled, dropped or bad.
        n = sent.get(topic, 0)
        r.row("  %s: every message sent handled or counted" % role, "sent %d = %d accounted" % (n, acc)
              if n == acc else "sent %d, accounted %d: %d neither handled nor counted as dropped 30 s "
              "after the flood" % (n, acc, n - acc),
              "sent = handled + dropped + bad", n == acc)
    f = lambda k: sum(m.get(k, {}).values())  # noqa: E731
    # How hard the flood was: on a loaded machine edged reads slower, and
    # fewer messages arrive in the window.
    got = by_topic(m, "edged_topic_bytes_total", env["FSM_TOPIC"]) + by_topic(m, "edged_topic_bytes_total", env["JOINT_TOPIC"])
    r.row("flood received", "%.0f MiB in the %s s window (%.0f MiB/s)" % (
        got / MIB, env["SECONDS"], got / MIB / float(env["SECONDS"])))
    fd = f("edged_fsm_dropped_total")
    r.row("drops on /metrics", "topic drops %d, fsm queue drops %d" % (
        by_topic(m, "edged_topic_drops_total", env["FSM_TOPIC"]) + by_topic(m, "edged_topic_drops_total", env["JOINT_TOPIC"]), fd))
    return r.save()


def flood_accounts(m, env):
    """Per flooded topic: role, topic, received, dropped, bad, handled and
    what handled counts (FSM: events the machine handled plus drops of the
    FSM queue; joints: samples)."""
    f = lambda k: sum(m.get(k, {}).values())  # noqa: E731
    out = []
    for role, topic, handled, hname in (
            ("fsm", env["FSM_TOPIC"], f("edged_fsm_events_total") + f("edged_fsm_dropped_total"), "fsm events + fsm drops"),
            ("joints", env["JOINT_TOPIC"], f("edged_joint_samples_total"), "joint samples")):
        out.append((role, topic, by_topic(m, "edged_topic_messages_total", topic),
                    by_topic(m, "edged_topic_drops_total", topic),
                    by_topic(m, "edged_topic_decode_errors_total", topic) + by_topic(m, "edged_topic_unknown_type_total", topic),
                    handled, hname))
    return out


def balanced(d, url):
    """Exit 0 when every message the peer sent on the flooded topics is
    handled or counted (edged's queues drained)."""
    import urllib.request
    p = os.path.join(d, "metrics-poll.txt")
    with urllib.request.urlopen(url, timeout=5) as resp, open(p, "wb") as f:
        f.write(resp.read())
    rows = flood_accounts(soak.metrics(p), read_env(d))
    sp = os.path.join(d, "stats.json")
    sent = json.load(open(sp)) if os.path.exists(sp) else {}
    return 0 if all(sent.get(topic, 0) == handled + drops + bad
                    for _, topic, _, drops, bad, handled, _ in rows) else 1


def stall(d):
    env, m = read_env(d), metrics(d)
    r = Result(d, "2. stalled publishers (%s publishers, 64 MiB frame length, all but 1 byte sent, then silence; %s s)"
               % (env.get("N"), env.get("SECONDS")))
    bound, how = ring_bound(d)
    r.row("bound", "%.0f MiB" % (bound / MIB), how)
    r.memory("samples.tsv", bound)
    r.alive(env)
    st = json.load(open(os.path.join(d, "stats.json"))) if os.path.exists(os.path.join(d, "stats.json")) else {}
    topic = env["CAM_TOPIC"]
    r.row("connections edged made to the stalled publishers", "%d" % st.get("connections", 0))
    if m:
        r.row("publishers connected at the end (/metrics)", "%d" % by_topic(m, "edged_topic_publishers", topic))
    return r.save()


def amplify(d):
    env = read_env(d)
    r = Result(d, "3. decoder amplification (60 MiB message: array of 60 Mi - 4 elements of an empty type; %s s)"
               % env.get("SECONDS"))
    bound, how = ring_bound(d)
    r.row("bound, edged run", "%.0f MiB" % (bound / MIB), how)
    r.memory("samples.tsv", bound, "edged run (fsm type field)")
    r.alive(env)
    m = metrics(d)
    if m:
        t = env["AMP_TOPIC"]
        r.row("edged run: received / decode errors", "%d / %d" % (
            by_topic(m, "edged_topic_messages_total", t), by_topic(m, "edged_topic_decode_errors_total", t)))
    r.row("bound, edged echo", "256 MiB", "no rings: 0 + 256 MiB")
    r.memory("samples-echo.tsv", SLACK, "edged echo")
    r.row("edged echo exit", env.get("ECHO_EXIT", "?"), "an error, not a crash or an OOM kill")
    return r.save()


def pubupdate(d):
    env = read_env(d)
    r = Result(d, "3b. publisherUpdate with %s fake publisher URIs (closed ports), then %s s" % (
        env.get("URIS"), env.get("SECONDS")))
    bound, how = ring_bound(d)
    r.row("bound", "%.0f MiB" % (bound / MIB), how)
    ss = r.memory("samples.tsv", bound)
    r.alive(env)
    try:
        with open(os.path.join(d, "pubupdate.json")) as f:
            call = json.load(f)
        r.row("publisherUpdate call", "%.1f s, answer %s" % (call["seconds"], call["result"]))
    except (OSError, ValueError):
        r.row("publisherUpdate call", "no answer recorded (see logs)")
    t0 = float(env.get("T_CALL", 0))
    tck = os.sysconf("SC_CLK_TCK")
    if ss:
        # CPU in the second half of the window: a retry storm keeps burning,
        # a bounded, backed-off retry does not.
        half = t0 + float(env["SECONDS"]) / 2
        w = [s for s in ss if s[0] >= half]
        if len(w) >= 2:
            cpu = (w[-1][3] - w[0][3]) / tck / (w[-1][0] - w[0][0])
            r.row("edged CPU, second half of the window", "%.0f%% of one core" % (100 * cpu), "< 25%", cpu < 0.25)
        allw = [s for s in ss if s[0] >= t0]
        if len(allw) >= 2:
            cpu = (allw[-1][3] - allw[0][3]) / tck / (allw[-1][0] - allw[0][0])
            r.row("edged CPU, whole window", "%.0f%% of one core" % (100 * cpu))
    return r.save()


def compare_sink(r, d, sheets_hard):
    """Segments, manifests, sheets and labeling sheets of edged's store
    (after it stopped) against the sink's output: soak/check.py's
    comparison. Sheets count as lost beyond the outbox's evictions."""
    env = read_env(d)
    miss, tot = soak.compare(d, env["ROBOT"])
    r.row("episodes / segments recorded by the robot", "%d / %d" % (tot["episodes"], tot["segments"]))
    r.row("segments lost at the sink", "%d of %d" % (len(miss["segments"]), tot["segments"]), "0",
          not miss["segments"] and tot["segments"] > 0)
    r.row("episode manifests lost or left open at the sink", "%d of %d" % (len(miss["manifests"]), tot["episodes"]),
          "0", not miss["manifests"] and tot["episodes"] > 0)
    evicted = sum(metrics(d).get("edged_outbox_evicted_total", {}).values())
    lost = len(miss["sheets"]) + len(miss["labels"])
    r.row("sheets (+ labeling sheets) lost at the sink", "%d of %d (+ %d of %d); outbox evicted %d" % (
        len(miss["sheets"]), tot["sheets"], len(miss["labels"]), tot["labels"], evicted),
        "<= evicted" if sheets_hard else "", (lost <= evicted) if sheets_hard else None)
    for kind in ("segments", "manifests", "sheets", "labels"):
        if miss[kind]:
            r.row("  missing %s (first 3)" % kind, ", ".join(miss[kind][:3]))


def diskfull(d):
    env = read_env(d)
    r = Result(d, "4. sink on a full filesystem (tmpfs, full for %s s, then grown)" % env.get("FULL_SECONDS"))
    if env.get("SKIPPED"):
        r.row("skipped", env["SKIPPED"], "needs mount -t tmpfs (root)", None)
        return r.save()
    r.alive(env)
    r.row("filesystem", "tmpfs %s, filled at +%ss (after the first segment arrived), grown to %s at +%ss" % (
        env.get("SIZE0"), env.get("T_FULL"), env.get("SIZE1"), env.get("T_GROW")))
    r.row("sink write errors logged while full", env.get("SINK_ERRORS", "?"))
    compare_sink(r, d, True)
    return r.save()


def sigkill(d):
    env = read_env(d)
    r = Result(d, "5. SIGKILL loop (%s kills of edged run at random moments of the FSM cycle)" % env.get("KILLS"))
    r.alive(env)
    r.row("kills at (s into the run)", env.get("KILL_TIMES", ""))
    compare_sink(r, d, False)
    return r.save()


def print_table(title, rows, ok):
    print()
    print("== %s: %s" % (title, "PASS" if ok else "FAIL"))
    w = max([len(x[0]) for x in rows] + [10])
    for name, value, aim, mark in rows:
        print("  %-*s  %-4s %s%s" % (w, name, mark, value, ("   [" + aim + "]") if aim else ""))


def summary(work):
    res = []
    for p in sorted(glob.glob(os.path.join(work, "*", "result.json"))):
        with open(p) as f:
            res.append(json.load(f))
    print("\n== edged stress summary (%s)" % work)
    for x in res:
        skipped = any(r[0] == "skipped" for r in x["rows"])
        print("  %-4s %s" % ("SKIP" if skipped else ("PASS" if x["pass"] else "FAIL"), x["title"]))
    failed = [x for x in res if not x["pass"]]
    if failed or not res:
        print("\nstress FAILED: %d of %d scenarios" % (len(failed), len(res)))
        return 1
    print("\nstress passed (%d scenarios)" % len(res))
    return 0


def main():
    a = sys.argv[1:]
    if len(a) == 4 and a[0] == "watch":
        return watch(int(a[1]), a[2], float(a[3]))
    if len(a) == 3 and a[0] == "balanced":
        return balanced(a[1], a[2])
    fns = {"flood": flood, "stall": stall, "amplify": amplify, "pubupdate": pubupdate, "diskfull": diskfull,
           "sigkill": sigkill, "summary": summary}
    if len(a) != 2 or a[0] not in fns:
        print(__doc__, file=sys.stderr)
        return 2
    return fns[a[0]](a[1])


if __name__ == "__main__":
    sys.exit(main())
