"""What the root integration tests share: running a command, two network
namespaces joined by a veth pair, and wf-actuate driven over stdin."""
import os
import subprocess

# The programs these tests start run with GLib criticals fatal, as
# meson's test_env sets, also when a test is run by hand: a GLib-CRITICAL
# reached from any input fails the test. Not fatal-warnings: the daemons
# log operational problems (a station gone, a textfile not written) with
# g_warning().
_g_debug = [f for f in os.environ.get("G_DEBUG", "").split(",") if f]
if "fatal-criticals" not in _g_debug:
    os.environ["G_DEBUG"] = ",".join(_g_debug + ["fatal-criticals"])


def run(*args, check=True, **kw):
    """Run a command, output captured; an AssertionError naming it and its
    stderr when it fails and check is set."""
    r = subprocess.run(args, capture_output=True, text=True, **kw)
    if check and r.returncode != 0:
        raise AssertionError("%s exited %d: %s" % (" ".join(args), r.returncode,
                                                   (r.stderr or r.stdout).strip()))
    return r


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
    """wf-actuate --stdin (tests/wf-actuate.c) in namespace `netns`,
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
