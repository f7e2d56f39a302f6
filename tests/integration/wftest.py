"""What the root integration tests share: running a command, and two
network namespaces joined by a veth pair."""
import os
import subprocess


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
