"""The Python that the tests, the benchmarks and the testbed share: one
copy of each helper, so that their figures and rules cannot drift apart.

    import wftest                  # after sys.path has testlib/ (the caller's TOP)
    wftest.jain(xs), wftest.tradeoff(xs, capacity)    # as src/metrics computes them
    wftest.SKIP                                       # meson's "skipped" exit status
    wftest.wait_for(what, fn)                         # poll until true, or fail naming what
    wftest.main()                                     # every test file's __main__
    wftest.run(...), VethNet, Actuate                 # commands, namespaces, wf-actuate
    wftest.free_port(), wftest.report(...)            # a free UDP port, a report datagram
    wftest.apt_offline(dir, ...)                      # apt-get on its own state only

Importing it puts testbed/ (the emulated BSS) on sys.path too: `import
testbed` works after it. Nothing in here may import tests/ or bench/.
"""
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
TESTBED = os.path.join(TOP, "testbed")
if TESTBED not in sys.path:
    sys.path.append(TESTBED)

# meson's exit status for a skipped test.
SKIP = 77


# ---- fairness, as src/metrics/wlanfair-fairness.c ----

def jain(xs):
    """Jain's index of throughputs xs. All zero is 1.0 (equal shares of
    nothing), as wf_fairness_jain(); no throughputs is an error."""
    if not xs:
        raise ValueError("jain: no throughputs")
    s, q = sum(xs), sum(x * x for x in xs)
    return 1.0 if q == 0 else s * s / (len(xs) * q)


def tradeoff(xs, capacity, alpha=1.0):
    """The trade-off index F(X, C, alpha) = min(S, 1)^alpha / (n Q - 2 S + 2)
    in units of C (S, Q: sum and sum of squares of x / C); over capacity
    allowed (wlanfairctl fairness --allow-over)."""
    if not xs:
        raise ValueError("tradeoff: no throughputs")
    y = [x / capacity for x in xs]
    s, q = sum(y), sum(v * v for v in y)
    return min(s, 1.0) ** alpha / (len(y) * q - 2 * s + 2)


# ---- waiting ----

def wait_for(what, fn, timeout=10.0, interval=0.05, until=None, ignore=(), check=None,
             detail=None):
    """Call fn() every `interval` s until its value passes `until` (default:
    is true) and return that value. After `timeout` s an AssertionError
    names `what` and the last value. Exceptions in `ignore` count as "not
    yet" (kept as the last value); check(), called between tries, raises to
    stop early (a daemon that exited); detail() adds text to the failure (a
    log). A loaded CI machine (ASan, two cores) is why nothing here is a
    fixed sleep."""
    deadline = time.monotonic() + timeout
    last = None
    while True:
        try:
            last = fn()
            if until(last) if until is not None else last:
                return last
        except ignore as e:
            last = e
        if time.monotonic() >= deadline:
            break
        if check is not None:
            check()
        time.sleep(interval)
    msg = "timed out after %g s waiting for %s (last: %.2000r)" % (timeout, what, last)
    raise AssertionError(msg + (detail() if detail is not None else ""))


# ---- the unittest main of every test file ----

def fatal_criticals():
    """The programs a test starts run with GLib criticals fatal, as meson's
    test_env sets, also when a test is run by hand: a GLib-CRITICAL reached
    from any input fails the test. Not fatal-warnings: the daemons log
    operational problems (a station gone, a textfile not written) with
    g_warning()."""
    flags = [f for f in os.environ.get("G_DEBUG", "").split(",") if f]
    if "fatal-criticals" not in flags:
        os.environ["G_DEBUG"] = ",".join(flags + ["fatal-criticals"])


def main(requires=None):
    """Run the cases named on the command line (Class or Class.test_case;
    every case of the file without names; --list prints their names and
    runs none). Exit status for meson: 0, 1 when one failed, SKIP (77)
    when requires(names) returns a reason (printed) or when every case run
    was skipped."""
    names = sys.argv[1:]
    module = sys.modules["__main__"]
    loader = unittest.defaultTestLoader
    listing = names[:1] == ["--list"]
    if listing:
        names = names[1:]
    bad = [n for n in names if n.startswith("-")]
    if bad:
        print(f"{sys.argv[0]}: unknown option {bad[0]}\n"
              f"usage: {sys.argv[0]} [--list] [Class | Class.test_case ...]", file=sys.stderr)
        sys.exit(2)
    suite = loader.loadTestsFromNames(names, module) if names else loader.loadTestsFromModule(module)
    if listing:
        for case in _cases(suite):
            print(case.id().split(".", 1)[1])
        sys.exit(0)
    fatal_criticals()
    reason = requires(names) if requires is not None else None
    if reason:
        print("SKIP: " + reason)
        sys.exit(SKIP)
    result = unittest.TextTestRunner(verbosity=2, stream=sys.stdout).run(suite)
    if result.wasSuccessful() and result.testsRun and len(result.skipped) == result.testsRun:
        sys.exit(SKIP)
    sys.exit(0 if result.wasSuccessful() else 1)


def _cases(suite):
    for t in suite:
        if isinstance(t, unittest.TestSuite):
            yield from _cases(t)
        else:
            yield t


def need_root(names=()):
    """A requires= for main(): the reason to skip, or None."""
    return None if os.geteuid() == 0 else "needs root"


# ---- commands, namespaces, wf-actuate ----

def run(*args, check=True, **kw):
    """Run a command, output captured; an AssertionError naming it and its
    stderr when it fails and check is set."""
    r = subprocess.run(args, capture_output=True, text=True, **kw)
    if check and r.returncode != 0:
        raise AssertionError("%s exited %d: %s" % (" ".join(args), r.returncode,
                                                   (r.stderr or r.stdout).strip()))
    return r


def iperf3_server(ns, addr, port, procs):
    """A one-off iperf3 server in network namespace ns, listening on
    addr:port when this returns (an early exit fails at once); appended to
    procs, which the caller stops with stop_procs(). Not daemonised: a
    daemon whose client never came outlives its deleted namespace."""
    proc = subprocess.Popen(["ip", "netns", "exec", ns, "iperf3", "-s", "-1", "-B", addr,
                             "-p", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    procs.append(proc)

    def alive():
        if proc.poll() is not None:
            raise AssertionError("iperf3 -s on port %d exited %s before listening"
                                 % (port, proc.returncode))
    wait_for("iperf3 listening on port %d" % port,
             lambda: (":%d " % port) in run("ip", "netns", "exec", ns, "ss", "-Hltn").stdout,
             timeout=10, check=alive)
    return proc


def stop_procs(procs):
    """Kill the processes of procs that still run, reap them all, empty it."""
    for proc in procs:
        if proc.poll() is None:
            proc.kill()
        proc.wait(10)
    procs.clear()


class VethNet:
    """A client ('station') and a server namespace joined by a veth pair,
    named PREFIX<pid>-c / -s (devices PREFIX<pid>c / s), CADDR and SADDR
    on a /24. Nothing outlives close(), even a half-built one."""

    def __init__(self, prefix, caddr, saddr):
        self.p = "%s%d" % (prefix, os.getpid())
        self.client, self.server = self.p + "-c", self.p + "-s"
        self.cdev, self.sdev = self.p + "c", self.p + "s"
        self.caddr, self.saddr = caddr, saddr
        try:
            run("ip", "netns", "add", self.client)
            run("ip", "netns", "add", self.server)
            run("ip", "link", "add", self.cdev, "netns", self.client, "type", "veth",
                "peer", "name", self.sdev, "netns", self.server)
            for ns, dev, addr in ((self.client, self.cdev, self.caddr),
                                  (self.server, self.sdev, self.saddr)):
                run("ip", "-n", ns, "addr", "add", addr + "/24", "dev", dev)
                run("ip", "-n", ns, "link", "set", dev, "up")
                run("ip", "-n", ns, "link", "set", "lo", "up")
        except BaseException:
            self.close()
            raise

    def ns(self, ns, *args, **kw):
        return run("ip", "netns", "exec", ns, *args, **kw)

    def close(self):
        for ns in (self.client, self.server):
            run("ip", "netns", "del", ns, check=False)


class Actuate:
    """wf-actuate --stdin (tests/apd/wf-actuate.c) in namespace `netns`,
    acting on `dev`: one command per call, its answer ("ok" or
    "error: ...") returned. Its stderr goes to the file `log`. Extra
    arguments (e.g. --rwnd-policy) go before --stdin."""

    def __init__(self, act, netns, dev, state, log, actuator, *extra):
        self.log = open(log, "a")
        self.p = subprocess.Popen(
            ["ip", "netns", "exec", netns, act, "--iface", dev, "--state", state,
             "--actuator", actuator, *extra, "--stdin"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log, text=True)

    def __call__(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()
        return self.p.stdout.readline().strip()

    def crash(self):
        self.p.stdin.write("crash\n")
        self.p.stdin.flush()
        return self.p.wait(10)

    def close(self):
        """Its exit status: 0 after the end of its input (the sanitizers'
        leak check runs then), 3 after a crash."""
        if self.p.poll() is None:
            self.p.stdin.close()
            try:
                self.p.wait(20)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait()
        self.log.close()
        return self.p.returncode


# ---- apt, offline and on its own ----

def apt_offline(d, status="", sources_list=None, sources_parts=None):
    """(argv prefix, env) for an apt-get that uses only directory d: its
    own lists, cache, status file (text `status`), sources (a one-line
    sources.list, or deb822 files in a parts directory) and none of this
    machine's apt configuration (an empty APT_CONFIG). For the packaging
    tests and tests/packaging/resolver; amd64, no Recommends."""
    for sub in ("lists/partial", "cache/archives/partial", "empty", "parts"):
        os.makedirs(os.path.join(d, sub), exist_ok=True)
    with open(os.path.join(d, "status"), "w") as f:
        f.write(status)
    if sources_list is not None:
        with open(os.path.join(d, "sources.list"), "w") as f:
            f.write(sources_list)
    for name, text in (sources_parts or {}).items():
        with open(os.path.join(d, "parts", name), "w") as f:
            f.write(text)
    open(os.path.join(d, "apt.conf"), "w").close()
    opts = ["apt-get"]
    for k, v in [("Dir::State", d), ("Dir::State::status", f"{d}/status"),
                 ("Dir::State::Lists", f"{d}/lists"), ("Dir::Cache", f"{d}/cache"),
                 ("Dir::Etc::SourceList", f"{d}/sources.list" if sources_list is not None
                  else f"{d}/empty/none"),
                 ("Dir::Etc::SourceParts", f"{d}/parts"),
                 ("Dir::Etc::Preferences", f"{d}/empty/none"),
                 ("Dir::Etc::PreferencesParts", f"{d}/empty"),
                 ("Dir::Etc::Parts", f"{d}/empty"), ("APT::Architecture", "amd64"),
                 ("APT::Architectures::", "amd64"), ("Debug::NoLocking", "1"),
                 ("APT::Sandbox::User", "root"), ("APT::Install-Recommends", "0"),
                 ("Acquire::Languages", "none")]:
        opts += ["-o", f"{k}={v}"]
    env = dict(os.environ, APT_CONFIG=f"{d}/apt.conf", LC_ALL="C.UTF-8")
    env.pop("DEBIAN_FRONTEND", None)
    return opts, env


# ---- reports and ports ----

def free_port(host="127.0.0.1"):
    """A UDP port nobody holds now on `host` ("::": both families). Another
    process may take it before the caller binds it: callers that start a
    listener retry on "Address already in use"."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_DGRAM) as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def wifi_body(goodput_rx=1e6, goodput_tx=0.0):
    """A report body (docs/report-protocol.md) with one Wi-Fi interface."""
    return {"interfaces": [{"name": "wlan0", "ifindex": 3, "wifi": True, "up": True,
                            "rx_bps": goodput_rx, "tx_bps": goodput_tx,
                            "goodput_rx_bps": goodput_rx, "goodput_tx_bps": goodput_tx}],
            "flows_total": 1}


def report(host, seq, body=None, boot="a1b2c3d4e5f60718", time_us=None, **fields):
    """An unsigned report datagram (compact JSON bytes) from `host` (32 hex
    digits), number `seq`, sent now unless `time_us`; `body`: wifi_body()
    by default; `fields` added or replaced (e.g. hostname=)."""
    r = {"wlanfair_report": 1, "host": host, "seq": seq,
         "time_us": time_us if time_us is not None else int(time.time() * 1e6),
         "boot": boot, "interval_s": 1.0}
    r.update(body if body is not None else wifi_body())
    r.update(fields)
    return json.dumps(r, separators=(",", ":")).encode()


# ---- benchmarks: building, --smoke, where results go ----

# A smoke run (bench/meson.build, suite bench-smoke): every benchmark once
# in its smallest form, so that none rots unnoticed; its figures are not
# judged and never replace bench/results/.
SMOKE_HELP = ("run once in the smallest form (seconds; figures not judged, results to "
              "$WLANFAIR_BENCH_RESULTS or a temporary directory, no picture)")


def smoke(args, root=False, **smallest):
    """After parse_args(): with --smoke (or WLANFAIR_BENCH_SMOKE=1), set each
    of `smallest` on args, draw no picture and send the results elsewhere
    (results_dir()); a smoke of a `root` benchmark run by another user is a
    skip (exit SKIP), as the integration tests' are. Returns whether this
    is a smoke run."""
    on = getattr(args, "smoke", False) or os.environ.get("WLANFAIR_BENCH_SMOKE") == "1"
    if on and root and os.geteuid() != 0:
        print("SKIP: needs root")
        sys.exit(SKIP)
    if on:
        args.smoke = True
        for k, v in smallest.items():
            setattr(args, k, v)
        if hasattr(args, "no_plot"):
            args.no_plot = True
        os.environ["WLANFAIR_BENCH_SMOKE"] = "1"
    return on


def results_dir():
    """bench/results/, or $WLANFAIR_BENCH_RESULTS; a smoke run without it
    writes to a temporary directory: a smoke never replaces a result."""
    d = os.environ.get("WLANFAIR_BENCH_RESULTS")
    if not d and os.environ.get("WLANFAIR_BENCH_SMOKE") == "1":
        d = os.environ["WLANFAIR_BENCH_RESULTS"] = tempfile.mkdtemp(prefix="wf-bench-smoke-")
    d = d or os.path.join(TOP, "bench", "results")
    os.makedirs(d, exist_ok=True)
    return d


def bench_build(builddir, targets, setup=("--buildtype=release", "-Dtests=false")):
    """Build `targets` in builddir (set up first when it is not), each as
    path/name:type: a bare name can be ambiguous (libwlanfair-reportd.a and
    the executable wlanfair-reportd share one), and meson then refuses it.
    With WLANFAIR_BENCH_BUILT=1 (the smoke tests: meson test built them,
    and no second ninja may run in its build directory) every name is
    only resolved (ninja -n), nothing built. Returns builddir."""
    if os.environ.get("WLANFAIR_BENCH_BUILT") == "1":
        builddir = os.environ.get("WLANFAIR_BENCH_BUILD", builddir)
        run("meson", "compile", "-C", builddir, "--ninja-args=-n", *targets)
        return builddir
    if not os.path.exists(os.path.join(builddir, "build.ninja")):
        subprocess.run(["meson", "setup", builddir, *setup], cwd=TOP, check=True,
                       stdout=subprocess.DEVNULL)
    subprocess.run(["meson", "compile", "-C", builddir, *targets], check=True,
                   stdout=subprocess.DEVNULL)
    return builddir


# The programs the benchmarks build, by path and type (bench_build()).
CTL_TARGET = "src/cli/wlanfairctl:executable"
TCPD_TARGET = "tcp/wlanfair-tcpd:executable"
REPORTD_TARGET = "src/reportd/wlanfair-reportd:executable"
SCAND_TARGET = "nm-plugin/wlanfair-scand:executable"
APD_TARGET = "apd/wlanfair-apd:executable"
