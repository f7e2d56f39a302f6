#!/usr/bin/env python3
"""A tc BPF object of wlanfair-apd stores nothing narrower than 8 bytes on its stack.

Linux 6.1's verifier (Debian 12), without CAP_PERFMON (wlanfair-apd.service
grants CAP_BPF and CAP_NET_ADMIN only), refuses a 1, 2 or 4-byte store into
a stack slot that held a spilled register: "attempt to corrupt spilled
pointer on stack", even when the spill was a scalar. clang reuses stack
slots between variables freely, so whether a program loads on 6.1 depended
on register allocation; the lab's rwnd scenario found it (later kernels
accept it, so test-rwnd passes here either way). The program keeps its
objects in a per-CPU map value instead, and every stack store is a whole
8-byte slot (register spills, 8-byte keys). This test reads the compiled
object's instructions: any narrower store at r10 fails it.

    test-bpf-stack.py LLVM_OBJDUMP wlanfair-rwnd.bpf.o
"""
import re
import subprocess
import sys

NARROW = re.compile(r"\*\(u(8|16|32) \*\)\(r10 [-+] ?\d+\) =")


def main():
    objdump, obj = sys.argv[1], sys.argv[2]
    out = subprocess.run([objdump, "-d", "--no-show-raw-insn", obj], check=True,
                         capture_output=True, text=True).stdout
    insns = [l for l in out.splitlines() if re.match(r"\s*\d+:", l)]
    bad = [l.strip() for l in insns if NARROW.search(l)]
    print("%d instructions, %d narrower than 8 bytes stored on the stack" % (len(insns), len(bad)))
    for l in bad[:20]:
        print("  " + l)
    if not insns:
        print("no instructions read from %s" % obj)
        return 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
