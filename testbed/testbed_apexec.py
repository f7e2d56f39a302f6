"""A program of the AP's own for the length of a testbed run
(`wlanfair-testbed run --ap-exec CMD`): started in the AP namespace after
the set-up and before the flows, stopped (SIGTERM) after them, before the
tear-down. bench/ackloss-sweep --ack-priority runs wlanfair-apd this way,
so that the AP of every cell re-marks its ACKs as a real one would.

A program that does not become ready (its --ap-exec-ready file) within
READY_S, or that is gone before the flows end, fails the run: its figures
would be of another AP than the one asked for."""
import os
import shlex
import signal
import subprocess
import time
from typing import List, Optional

READY_S = 15.0
STOP_S = 10.0


class ApExecError(RuntimeError):
    pass


class ApExec:
    def __init__(self, netns: str, cmd: str, ready: Optional[str], log_path: str):
        self.argv: List[str] = shlex.split(cmd)
        if not self.argv:
            raise ApExecError("--ap-exec: an empty command")
        self.netns, self.ready, self.log_path = netns, ready, log_path
        self.p: Optional[subprocess.Popen] = None
        self.rc: Optional[int] = None

    def start(self):
        if self.ready and os.path.exists(self.ready):
            os.unlink(self.ready)   # an earlier run's
        self.log = open(self.log_path, "w")
        self.p = subprocess.Popen(["ip", "netns", "exec", self.netns, *self.argv],
                                  stdout=self.log, stderr=subprocess.STDOUT,
                                  start_new_session=True)
        end = time.monotonic() + READY_S
        while time.monotonic() < end:
            if self.p.poll() is not None:
                raise ApExecError(f"--ap-exec exited {self.p.returncode} at its start "
                                  f"(see {self.log_path})")
            if not self.ready or os.path.exists(self.ready):
                return
            time.sleep(0.1)
        raise ApExecError(f"--ap-exec: no {self.ready} after {READY_S:g} s (see {self.log_path})")

    def alive(self) -> bool:
        return self.p is not None and self.p.poll() is None

    def stop(self) -> Optional[int]:
        """Its exit status (None: never started); killed when SIGTERM is
        not enough within STOP_S."""
        if self.p is None:
            return None
        if self.p.poll() is None:
            self.p.send_signal(signal.SIGTERM)
            try:
                self.p.wait(STOP_S)
            except subprocess.TimeoutExpired:
                os.killpg(self.p.pid, signal.SIGKILL)
                self.p.wait()
        self.log.close()
        self.rc = self.p.returncode
        return self.rc
