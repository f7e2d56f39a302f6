#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""--help and the man pages must document the same options.

For every command `wlanfairctl --help` lists (and every subcommand of those
that have some), runs the built `wlanfairctl ... --help`, reads the options
it lists, and compares them with the OPTIONS section and the SYNOPSIS of
the command's man page: the same long options, the same short ones, the
same taking an argument; and GOption's usage line names the whole command
("wlanfairctl scan hold [OPTION...]"). Then the same options check for the
daemons given on the command line (OPTIONS section only: their SYNOPSIS
says [OPTIONS]), and the conventions every daemon shares: -V/--version,
--check, -i meaning --interface and nothing else.
Also: every wlanfairctl page has an EXIT STATUS section naming the usage
status of src/cli/wlanfairctl.h.

Usage: test-help-man.py SRCDIR WLANFAIRCTL [DAEMON...]   (TAP on stdout)
"""

import os
import re
import subprocess
import sys

# ---- --help ---------------------------------------------------------------

HELP_OPTION = re.compile(
    r"^\s+(?:-(?P<short>[^-\s]), )?--(?P<long>[A-Za-z0-9][A-Za-z0-9-]*)"
    r"(?:=(?P<arg>\S+))?(?:\s|$)")


def run_help(argv):
    env = dict(os.environ, LC_ALL="C")
    r = subprocess.run(argv + ["--help"], capture_output=True, text=True,
                       env=env, timeout=60)
    if r.returncode != 0:
        raise AssertionError("%s --help exited %d: %s"
                             % (" ".join(argv), r.returncode, r.stderr))
    if r.stderr:
        raise AssertionError("%s --help wrote to stderr: %s"
                             % (" ".join(argv), r.stderr))
    return r.stdout


def goption_options(text):
    """{long: (short or None, takes_arg)} of a GOption --help, but the
    help options GOption adds itself."""
    opts = {}
    section = None
    for line in text.splitlines():
        if re.match(r"^\S.*Options:$", line):
            section = line
            continue
        if not line.strip():
            section = None
            continue
        if section is None or section.startswith("Help Options"):
            continue
        m = HELP_OPTION.match(line)
        if m:
            opts[m.group("long")] = (m.group("short"), m.group("arg") is not None)
    return opts


def usage_line(text):
    """The line after GOption's 'Usage:'."""
    lines = text.splitlines()
    for i, line in enumerate(lines[:-1]):
        if line.strip() == "Usage:":
            return lines[i + 1]
    return ""


def is_goption(text):
    return "Help Options:" in text


def listed_commands(text):
    """Names in the 'Commands:' block of a hand-written usage."""
    names = []
    inside = False
    for line in text.splitlines():
        if line.strip() == "Commands:":
            inside = True
            continue
        if inside:
            m = re.match(r"^  (\S+)\s", line)
            if not m:
                break
            names.append(m.group(1))
    return names


# ---- roff -----------------------------------------------------------------

def roff_text(line):
    """One roff line as plain text: font macros' arguments joined as
    troff joins them, escapes dropped."""
    line = line.rstrip("\n")
    m = re.match(r"^\.(B|I|BI|IB|BR|RB|IR|RI|SM|SB)(?:\s+(.*))?$", line)
    if m:
        args = re.findall(r'"((?:[^"]|"")*)"|(\S+)', m.group(2) or "")
        args = [a or b for a, b in args]
        sep = " " if m.group(1) in ("B", "I", "SM", "SB") else ""
        line = sep.join(args)
    elif line.startswith("."):
        return ""
    line = re.sub(r"\\f(\[[^]]*\]|\(..|.)", "", line)
    line = line.replace("\\-", "-").replace("\\(em", "-").replace("\\ ", " ")
    line = line.replace("\\&", "").replace("\\e", "\\")
    return line


def sections(path):
    """{section name: [lines]} of a man page."""
    out = {}
    name = None
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            m = re.match(r'^\.SH\s+"?([^"]*)"?\s*$', line)
            if m:
                name = roff_text(m.group(1)).strip()
                out[name] = []
            elif name is not None:
                out[name].append(line)
    return out


MAN_OPTION = re.compile(r"^--(?P<long>[A-Za-z0-9][A-Za-z0-9-]*)\s*(?:=\s*(?P<arg>\S.*))?$")
MAN_SHORT = re.compile(r"^-(?P<short>[^-\s])(?:\s+(?P<arg>\S.*))?$")


def man_options(lines):
    """[(long, short, takes_arg, scopes)] of an OPTIONS section: each .TP
    tag that names options; scopes are the (cmd) notes of its body, e.g.
    '.RB ( hold )' in wlanfairctl-scan(1)."""
    items = []
    i = 0
    while i < len(lines):
        if lines[i].startswith(".TP") and i + 1 < len(lines):
            tag = roff_text(lines[i + 1]).strip()
            body = []
            j = i + 2
            while j < len(lines) and not re.match(r"^\.(TP|SH|SS|PP|P|LP)\b", lines[j]):
                body.append(lines[j])
                j += 1
            scopes = set()
            for b in body:
                m = re.match(r"^\.RB\s+\(\s+(\S+)\s+\)", b)
                if m:
                    scopes.add(m.group(1))
            long_name = short = None
            takes_arg = False
            for part in tag.split(", "):
                part = part.strip()
                m = MAN_OPTION.match(part)
                if m:
                    long_name = m.group("long")
                    takes_arg = takes_arg or m.group("arg") is not None
                    continue
                m = MAN_SHORT.match(part)
                if m:
                    short = m.group("short")
                    takes_arg = takes_arg or m.group("arg") is not None
            if long_name:
                items.append((long_name, short, takes_arg, scopes))
            i = j
        else:
            i += 1
    return items


def synopsis_forms(lines):
    """The SYNOPSIS as a list of plain-text forms (split at .br/.PP)."""
    forms = [[]]
    for line in lines:
        if re.match(r"^\.(br|PP|P|LP|sp)\b", line):
            forms.append([])
            continue
        text = roff_text(line).strip()
        if text:
            forms[-1].append(text)
    return [" ".join(f) for f in forms if f]


def synopsis_options(form, short_to_long):
    """Long option names a synopsis form mentions; short ones mapped
    through the page's OPTIONS. Unknown short options come back as '-x'."""
    names = set(re.findall(r"--([A-Za-z0-9][A-Za-z0-9-]*)", form))
    for s in re.findall(r"(?:^|[\s\[|])-([A-Za-z0-9])(?=[\s\]|]|$)", form):
        names.add(short_to_long.get(s, "-" + s))
    return names


# ---- checks ---------------------------------------------------------------

class Tap:
    def __init__(self):
        self.n = 0
        self.failed = 0

    def check(self, name, problems):
        self.n += 1
        if problems:
            self.failed += 1
            print("not ok %d - %s" % (self.n, name))
            for p in problems:
                print("#   " + p)
        else:
            print("ok %d - %s" % (self.n, name))
        sys.stdout.flush()

    def done(self):
        print("1..%d" % self.n)
        return 1 if self.failed else 0


def compare(help_opts, man_items, what, page):
    """Problems between {long: (short, arg)} and man items."""
    problems = []
    man = {}
    for long_name, short, arg, _ in man_items:
        man[long_name] = (short, arg)
    for name in sorted(set(help_opts) - set(man)):
        problems.append("%s --help lists --%s, %s does not" % (what, name, page))
    for name in sorted(set(man) - set(help_opts)):
        problems.append("%s documents --%s, %s --help does not" % (page, name, what))
    for name in sorted(set(man) & set(help_opts)):
        hs, ha = help_opts[name]
        ms, ma = man[name]
        if hs != ms:
            problems.append("--%s: short option %s in --help, %s in %s"
                            % (name, "-" + hs if hs else "none",
                               "-" + ms if ms else "none", page))
        if ha != ma:
            problems.append("--%s: %s an argument in --help, %s in %s"
                            % (name, "takes" if ha else "takes no",
                               "takes" if ma else "takes no", page))
    return problems


def check_page_exit_status(tap, path, usage_status):
    secs = sections(path)
    page = os.path.basename(path)
    problems = []
    if "EXIT STATUS" not in secs:
        problems.append("%s has no EXIT STATUS section" % page)
    else:
        text = " ".join(roff_text(l) for l in secs["EXIT STATUS"])
        text = re.sub(r"\s+", " ", text)
        if not re.search(r"\b0\b", text):
            problems.append("%s: EXIT STATUS does not name 0" % page)
        if not re.search(r"\b%d\b[^.;]*?(usage|command line)" % usage_status, text, re.I):
            problems.append("%s: EXIT STATUS does not give %d for a usage error"
                            % (page, usage_status))
    tap.check("%s EXIT STATUS" % page, problems)


def check_command(tap, ctl, mandir, cmd):
    """wlanfairctl CMD: its man page against its --help (and its
    subcommands' --help when it has some)."""
    page = "wlanfairctl-%s.1" % cmd
    path = os.path.join(mandir, page)
    if not os.path.exists(path):
        tap.check("wlanfairctl %s has a man page" % cmd, ["no man/%s" % page])
        return
    secs = sections(path)
    items = man_options(secs.get("OPTIONS", []))
    short_to_long = {s: l for l, s, _, _ in items if s}
    forms = synopsis_forms(secs.get("SYNOPSIS", []))

    text = run_help([ctl, cmd])
    usages = {}
    if is_goption(text):
        subs = {None: goption_options(text)}
        usages[None] = usage_line(text)
    else:
        names = listed_commands(text)
        if not names:
            names = sorted(set(re.findall(r"wlanfairctl %s ([a-z][a-z-]*)" % cmd, text)))
        if not names:
            tap.check("wlanfairctl %s --help" % cmd, ["lists no options and no commands"])
            return
        subs = {}
        for sub in names:
            sub_text = run_help([ctl, cmd, sub])
            if not is_goption(sub_text):
                tap.check("wlanfairctl %s %s --help" % (cmd, sub),
                          ["is not a GOption help"])
                continue
            subs[sub] = goption_options(sub_text)
            usages[sub] = usage_line(sub_text)

    for sub, help_opts in subs.items():
        what = "wlanfairctl %s%s" % (cmd, " " + sub if sub else "")
        mine = [it for it in items if sub is None or not it[3] or sub in it[3]]
        problems = compare(help_opts, mine, what, page + " OPTIONS")
        # GOption's usage line names the whole command, subcommand included.
        usage = usages[sub]
        if not re.match(r"^\s*%s(\s|$)" % re.escape(what), usage):
            problems.append("%s --help: usage line '%s' does not name it"
                            % (what, usage.strip()))
        # The SYNOPSIS forms of this (sub)command list its options too.
        syn = set()
        found = False
        for form in forms:
            words = re.sub(r"[\[\]]", " ", form).split()
            if words[:2] != ["wlanfairctl", cmd]:
                continue
            if sub is not None and (len(words) < 3 or words[2] != sub):
                continue
            found = True
            syn |= synopsis_options(form, short_to_long)
        if not found:
            problems.append("%s SYNOPSIS has no form for %s" % (page, what))
        else:
            for name in sorted(syn - set(help_opts)):
                problems.append("%s SYNOPSIS of %s shows %s%s, --help does not list it"
                                % (page, what, "" if name.startswith("-") else "--", name))
            for name in sorted(set(help_opts) - syn):
                problems.append("%s SYNOPSIS of %s lacks --%s" % (page, what, name))
        tap.check("%s --help = %s" % (what, page), problems)

    if len(subs) > 1 or None not in subs:
        # Every subcommand --help knows has its SYNOPSIS form, and back.
        in_man = set()
        for form in forms:
            words = re.sub(r"[\[\]]", " ", form).split()
            if words[:2] == ["wlanfairctl", cmd] and len(words) > 2 \
                    and re.match(r"^[a-z][a-z-]*$", words[2]):
                in_man.add(words[2])
        problems = ["%s --help lists '%s', the SYNOPSIS of %s does not" % (cmd, s, page)
                    for s in sorted(set(subs) - in_man)]
        problems += ["%s SYNOPSIS shows 'wlanfairctl %s %s', --help does not" % (page, cmd, s)
                     for s in sorted(in_man - set(subs))]
        tap.check("wlanfairctl %s subcommands = %s" % (cmd, page), problems)


def check_main(tap, ctl, mandir):
    text = run_help([ctl])
    secs = sections(os.path.join(mandir, "wlanfairctl.1"))
    commands = listed_commands(text)
    man_commands = set()
    for i, line in enumerate(secs.get("COMMANDS", [])):
        if line.startswith(".TP") and i + 1 < len(secs["COMMANDS"]):
            tag = roff_text(secs["COMMANDS"][i + 1]).split()
            if tag:
                man_commands.add(tag[0])
    problems = ["wlanfairctl --help lists '%s', wlanfairctl.1 COMMANDS does not" % c
                for c in sorted(set(commands) - man_commands)]
    problems += ["wlanfairctl.1 COMMANDS has '%s', wlanfairctl --help does not" % c
                 for c in sorted(man_commands - set(commands))]
    usage = re.findall(r"--([a-z][a-z-]*)", text.split("\n\n")[0])
    man = man_options(secs.get("OPTIONS", []))
    problems += compare({u: (None, False) for u in usage},
                        [(l, None, a, s) for l, _, a, s in man],
                        "wlanfairctl", "wlanfairctl.1 OPTIONS")
    tap.check("wlanfairctl --help = wlanfairctl.1", problems)
    return commands


def check_daemon(tap, exe, mandir):
    name = os.path.basename(exe)
    path = os.path.join(mandir, name + ".8")
    if not os.path.exists(path):
        tap.check("%s has a man page" % name, ["no man/%s.8" % name])
        return
    help_opts = goption_options(run_help([exe]))
    items = man_options(sections(path).get("OPTIONS", []))
    problems = compare(help_opts, items, name, name + ".8 OPTIONS")
    # Two empty lists would agree: a daemon without options is a parse error.
    if not help_opts:
        problems.append("no option found in %s --help" % name)
    tap.check("%s --help = %s.8" % (name, name), problems)
    # One set of conventions: -V/--version, --check, and -i only ever
    # for --interface.
    conv = []
    if help_opts.get("version", (None,))[0] != "V":
        conv.append("%s: no -V/--version" % name)
    if "check" not in help_opts:
        conv.append("%s: no --check" % name)
    for long, (short, _) in sorted(help_opts.items()):
        if short == "i" and long != "interface":
            conv.append("%s: -i is --%s, not --interface" % (name, long))
    tap.check("%s follows the option conventions" % name, conv)


def usage_status(srcdir):
    with open(os.path.join(srcdir, "src", "cli", "wlanfairctl.h"), encoding="utf-8") as f:
        m = re.search(r"WF_EXIT_USAGE\s*=\s*(\d+)", f.read())
    assert m, "no WF_EXIT_USAGE in wlanfairctl.h"
    return int(m.group(1))


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    srcdir, ctl, daemons = sys.argv[1], sys.argv[2], sys.argv[3:]
    mandir = os.path.join(srcdir, "man")
    tap = Tap()
    for cmd in check_main(tap, ctl, mandir):
        check_command(tap, ctl, mandir, cmd)
    status = usage_status(srcdir)
    for page in sorted(os.listdir(mandir)):
        if page.startswith("wlanfairctl") and page.endswith(".1"):
            check_page_exit_status(tap, os.path.join(mandir, page), status)
    for exe in daemons:
        check_daemon(tap, exe, mandir)
    return tap.done()


if __name__ == "__main__":
    sys.exit(main())
