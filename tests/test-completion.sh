#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The bash completion of wlanfairctl, run for real: source the file, set
# COMP_WORDS/COMP_CWORD/COMP_LINE as readline would for a command line,
# call the completion function, check COMPREPLY. The options it proposes
# are checked against the built wlanfairctl's --help, both ways. nmcli is a
# stub on PATH. With bash-completion installed the whole run is repeated
# with it loaded first; with zsh installed the zsh completion's syntax and
# option lists are checked too.
#
# Usage: test-completion.sh SRCDIR WLANFAIRCTL        (TAP on stdout)

set -u
srcdir=$1
ctl=$2
bash_comp=$srcdir/completion/wlanfairctl
zsh_comp=$srcdir/completion/_wlanfairctl
n=0
failed=0

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Words on one line, for messages.
flat()
{
    tr '\n' ' ' <<< "$1"
}

ok()
{
    n=$((n + 1))
    echo "ok $n - $1"
}

not_ok()
{
    n=$((n + 1))
    failed=$((failed + 1))
    echo "not ok $n - $1"
    shift
    local line
    for line in "$@"; do echo "#   $line"; done
}

# Split LINE as readline does for completion: at unquoted blanks, and a
# run of COMP_WORDBREAKS characters '=' ':' is a word of its own.
split_line()
{
    local line=$1 i c word='' quote='' esc=0 breaks='=:'
    COMP_WORDS=()
    for ((i = 0; i < ${#line}; i++)); do
        c=${line:i:1}
        if ((esc)); then
            word+=$c
            esc=0
            continue
        fi
        if [[ -n $quote ]]; then
            word+=$c
            [[ $c == "$quote" ]] && quote=
            continue
        fi
        if [[ $c == [[:blank:]] ]]; then
            [[ -n $word ]] && COMP_WORDS+=("$word")
            word=
            continue
        fi
        # A break character ends a word; a run of them is a word.
        if [[ $breaks == *"$c"* ]]; then
            [[ -n $word && ${word//[$breaks]/} != "" ]] && { COMP_WORDS+=("$word"); word=; }
        elif [[ -n $word && ${word//[$breaks]/} == "" ]]; then
            COMP_WORDS+=("$word")
            word=
        fi
        word+=$c
        [[ $c == \\ ]] && esc=1
        [[ $c == [\"\'] ]] && quote=$c
    done
    # The word under the cursor, empty after a blank.
    COMP_WORDS+=("$word")
    COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
}

# complete LINE: COMPREPLY of the completion function, sorted, one per
# line, in $reply; what it wrote on stderr in $reply_err.
complete_line()
{
    local COMP_WORDS COMP_CWORD COMP_LINE=$1 COMP_POINT=${#1} COMP_TYPE=9 COMP_KEY=9
    split_line "$1"
    COMPREPLY=()
    # PATH only for the completion: the test's own tools stay reachable.
    PATH=${comp_path:-$PATH} _wlanfairctl wlanfairctl "${COMP_WORDS[COMP_CWORD]}" \
        "${COMP_WORDS[COMP_CWORD - 1]}" 2> "$tmp/stderr"
    reply=$(printf '%s\n' "${COMPREPLY[@]}" | LC_ALL=C sort)
    [[ ${#COMPREPLY[@]} -eq 0 ]] && reply=
    reply_err=$(< "$tmp/stderr")
}

# expect LINE WORD...: COMPREPLY is exactly these words.
expect()
{
    local line=$1 want
    shift
    complete_line "$line"
    want=$( (($#)) && printf '%s\n' "$@" | LC_ALL=C sort)
    if [[ $reply == "$want" && -z $reply_err ]]; then
        ok "'$line' -> ${*:-nothing}"
    else
        not_ok "'$line' -> ${*:-nothing}" "got: $(flat "$reply")" "stderr: $reply_err"
    fi
}

# expect_has LINE WORD: COMPREPLY contains WORD.
expect_has()
{
    complete_line "$1"
    if grep -qxF -- "$2" <<< "$reply" && [[ -z $reply_err ]]; then
        ok "'$1' proposes $2"
    else
        not_ok "'$1' proposes $2" "got: $(flat "$reply")" "stderr: $reply_err"
    fi
}

# Long options of a GOption --help, --help included, sorted; '=' after
# those that take a value (as the completion offers them).
help_options()
{
    local -a cmd
    read -ra cmd <<< "$*"
    LC_ALL=C "$ctl" "${cmd[@]}" --help |
        sed -nE 's/^  +(-[^-], )?(--[A-Za-z0-9][A-Za-z0-9-]*)(=)?.*/\2\3/p' | LC_ALL=C sort
}

# Short options of a GOption --help, '+' after those that take a value
# (as zsh writes them), sorted.
help_shorts()
{
    local -a cmd
    read -ra cmd <<< "$*"
    LC_ALL=C "$ctl" "${cmd[@]}" --help |
        sed -nE 's/^  +(-[^-]), --[A-Za-z0-9][A-Za-z0-9-]*(=)?.*/\1\2/p' |
        sed 's/=$/+/' | LC_ALL=C sort
}

# Names in the "Commands:" block of a hand-written usage.
help_commands()
{
    local -a cmd
    read -ra cmd <<< "$*"
    LC_ALL=C "$ctl" "${cmd[@]}" --help |
        sed -n '/^Commands:$/,/^$/{s/^  \([a-z][a-z-]*\) .*/\1/p}' | LC_ALL=C sort
}

# Every option a (sub)command's --help lists and nothing else.
expect_options_as_help()
{
    local line=$1 want
    shift
    want=$(help_options "$@")
    complete_line "$line"
    if [[ -z $want ]]; then
        not_ok "'$line' options = --help" "no option in '$* --help'"
    elif [[ $reply == "$want" ]]; then
        ok "'$line' options = $* --help"
    else
        not_ok "'$line' options = $* --help" "completion: $(flat "$reply")" \
            "--help:     $(flat "$want")" \
            "only in completion: $(comm -23 <(echo "$reply") <(echo "$want") | tr '\n' ' ')" \
            "only in --help:     $(comm -13 <(echo "$reply") <(echo "$want") | tr '\n' ' ')"
    fi
}

run_checks()
{
    local mode=$1 i iface

    # Commands: those of 'wlanfairctl --help', none more.
    complete_line "wlanfairctl "
    if [[ -n $reply && $reply == "$(help_commands)" ]]; then
        ok "$mode: commands = wlanfairctl --help"
    else
        not_ok "$mode: commands = wlanfairctl --help" "got: $(flat "$reply")" \
            "--help: $(flat "$(help_commands)")"
    fi
    expect "wlanfairctl f" fairness
    expect "wlanfairctl a" ap
    expect "wlanfairctl t" tcp top
    expect "wlanfairctl s" scan status
    expect "wlanfairctl --" --help --version
    expect "wlanfairctl bogus "
    expect "wlanfairctl bogus --"

    # Options: each command's, exactly as its --help lists them.
    expect_options_as_help "wlanfairctl fairness --" fairness
    expect_options_as_help "wlanfairctl listen --" listen
    expect_options_as_help "wlanfairctl status --" status
    expect_options_as_help "wlanfairctl top -" top
    expect_options_as_help "wlanfairctl tcp status --" tcp status
    expect_options_as_help "wlanfairctl scan status --" scan status
    expect_options_as_help "wlanfairctl scan --" scan status
    expect_options_as_help "wlanfairctl scan hold --" scan hold
    expect_options_as_help "wlanfairctl scan get --" scan get
    expect_options_as_help "wlanfairctl scan set --" scan set
    expect_options_as_help "wlanfairctl scan unset --" scan unset
    expect_options_as_help "wlanfairctl ap status --" ap status
    expect_options_as_help "wlanfairctl ap --" ap status
    expect_options_as_help "wlanfairctl ap watch -" ap watch
    # Short options that take a value: their value is not an option.
    for spec in fairness listen status top "tcp status" "scan status" "scan hold" \
        "scan set" "scan get" "scan unset" "ap status" "ap watch"; do
        read -ra shorts <<< "$(_wlanfairctl_short_args "$spec")"
        got=$( ((${#shorts[@]})) && printf '%s\n' "${shorts[@]}" | LC_ALL=C sort)
        want=$(help_shorts "$spec" | sed -n 's/+$//p')
        if [[ $got == "$want" ]]; then
            ok "short options with a value of '$spec' = --help"
        else
            not_ok "short options with a value of '$spec' = --help" \
                "completion: $(flat "$got")" "--help: $(flat "$want")"
        fi
    done
    expect "wlanfairctl fairness --al" --allow-over --alpha=
    expect "wlanfairctl fairness --j" --json
    expect "wlanfairctl status --b"
    expect "wlanfairctl top --js"

    # Subcommands.
    complete_line "wlanfairctl scan "
    if [[ -n $reply && $reply == "$(help_commands scan)" ]]; then
        ok "$mode: scan subcommands = scan --help"
    else
        not_ok "$mode: scan subcommands = scan --help" "got: $(flat "$reply")" \
            "--help: $(flat "$(help_commands scan)")"
    fi
    expect "wlanfairctl scan h" hold
    expect "wlanfairctl scan u" unset
    expect "wlanfairctl tcp " status
    expect "wlanfairctl tcp status "
    expect "wlanfairctl tcp frob --"
    complete_line "wlanfairctl ap "
    if [[ -n $reply && $reply == "$(help_commands ap)" ]]; then
        ok "$mode: ap subcommands = ap --help"
    else
        not_ok "$mode: ap subcommands = ap --help" "got: $(flat "$reply")" \
            "--help: $(flat "$(help_commands ap)")"
    fi
    expect "wlanfairctl ap w" watch
    expect "wlanfairctl ap watch --interval "
    expect "wlanfairctl ap watch -n "
    expect "wlanfairctl ap frob --"

    # Interfaces: those of /sys/class/net, lo among them (a build chroot
    # may lack /sys: nothing to compare with then).
    if [[ -d /sys/class/net/lo ]]; then
        for line in "wlanfairctl status -i " "wlanfairctl status --interface " \
            "wlanfairctl top --interface=" "wlanfairctl status --json -i l"; do
            expect_has "$line" lo
            for iface in $reply; do
                if [[ ! -d /sys/class/net/$iface ]]; then
                    not_ok "'$line': $iface is an interface"
                fi
            done
        done
        expect "wlanfairctl status --interface=lo" lo
    else
        ok "interfaces # SKIP no /sys/class/net/lo here"
    fi

    # Files, for the options that take one.
    mkdir -p "$tmp/files/sub dir"
    : > "$tmp/files/run.csv"
    : > "$tmp/files/tcp-status.json"
    (
        cd "$tmp/files" || exit 1
        expect "wlanfairctl fairness --series r" run.csv
        expect "wlanfairctl fairness -s r" run.csv
        expect "wlanfairctl fairness --series=r" run.csv
        expect "wlanfairctl fairness --json --series=" "run.csv" "sub dir" "tcp-status.json"
        expect "wlanfairctl fairness --series run.csv --plot r" run.csv
        expect "wlanfairctl tcp status --status-file t" tcp-status.json
        expect "wlanfairctl ap status --status t" tcp-status.json
        expect "wlanfairctl ap watch -n 2 --status=t" tcp-status.json
        expect "wlanfairctl ap --json --status t" tcp-status.json
        expect "wlanfairctl listen --key t" tcp-status.json
        expect "wlanfairctl status --socket s" "sub dir"
        # Not after a value that is free-form.
        expect "wlanfairctl fairness --capacity "
        expect "wlanfairctl fairness --window=r"
        expect "wlanfairctl listen -p "
        expect "wlanfairctl fairness 1 2 r"
        # The report has counted these: keep the numbering in step.
        echo "$n $failed" > "$tmp/counts"
    )
    read -r n failed < "$tmp/counts"

    expect "wlanfairctl listen --direction " rx total tx
    expect "wlanfairctl listen --direction=t" total tx

    # Connections, from nmcli: quoted for the shell.
    mkdir -p "$tmp/bin"
    cat > "$tmp/bin/nmcli" << 'EOF'
#!/bin/sh
# nmcli -g NAME connection show: ':' and '\' escaped in -g output.
[ "$*" = "-g NAME connection show" ] || exit 2
printf '%s\n' 'Home Wi-Fi' 'Office' 'Cafe\: free' 'lo'
EOF
    chmod +x "$tmp/bin/nmcli"
    comp_path=$tmp/bin:$PATH
    expect "wlanfairctl scan set " 'Cafe:\ free' 'Home\ Wi-Fi' Office lo
    expect "wlanfairctl scan get O" Office
    expect "wlanfairctl scan unset Home\\ W" 'Home\ Wi-Fi'
    expect "wlanfairctl scan set -- H" 'Home\ Wi-Fi'
    # COMP_WORDBREAKS has ':': the reply replaces what follows it.
    expect "wlanfairctl scan set Cafe:\\ f" '\ free'
    expect "wlanfairctl scan status "
    expect "wlanfairctl scan hold --reason "
    # Keys and values.
    expect "wlanfairctl scan set Office " beacon-loss-holdoff idle-holdoff idle-pps mode \
        policy roam-floor roam-floor-margin roam-hysteresis start-pps start-window
    expect "wlanfairctl scan get Office roam-f" roam-floor roam-floor-margin
    expect "wlanfairctl scan set Office mode " always auto off
    expect "wlanfairctl scan set Office wlanfair.scan.policy s" strict
    expect "wlanfairctl scan set Office start-pps "
    expect "wlanfairctl scan get Office mode "
    expect "wlanfairctl scan unset Office mode "
    # Options end at CONNECTION: -75 is a value there, not an option.
    expect "wlanfairctl scan set Office roam-floor -"
    # No nmcli: quietly nothing.
    comp_path=$tmp/empty
    expect "wlanfairctl scan set "
    expect "wlanfairctl scan get H"
    comp_path=

    # scan hold: a command, then its arguments.
    expect_has "wlanfairctl scan hold -- ech" echo
    expect_has "wlanfairctl scan hold --reason call ech" echo
}

if [[ ! -r $bash_comp ]]; then
    not_ok "completion file $bash_comp"
    echo "1..$n"
    exit 1
fi

# shellcheck source=/dev/null
source "$bash_comp"
if [[ $(complete -p wlanfairctl 2> /dev/null) == "complete -F _wlanfairctl wlanfairctl" ]]; then
    ok "plain bash: the file registers _wlanfairctl"
else
    not_ok "plain bash: the file registers _wlanfairctl" "$(complete -p wlanfairctl 2>&1)"
fi
run_checks "plain bash"

# The same with bash-completion's framework loaded, as on a desktop.
fw=/usr/share/bash-completion/bash_completion
if [[ -r $fw ]]; then
    (
        # shellcheck source=/dev/null
        BASH_COMPLETION_USER_DIR=$tmp/none source "$fw" > /dev/null 2>&1
        # shellcheck source=/dev/null
        source "$bash_comp"
        run_checks "bash-completion"
        echo "$n $failed" > "$tmp/counts"
    )
    read -r n failed < "$tmp/counts"
fi

# zsh: the file parses, and offers each command's --help options.
if command -v zsh > /dev/null && [[ -r $zsh_comp ]]; then
    if err=$(zsh -n "$zsh_comp" 2>&1); then
        ok "zsh -n _wlanfairctl"
    else
        not_ok "zsh -n _wlanfairctl" "$err"
    fi
fi
if [[ -r $zsh_comp ]]; then
    # One function per (sub)command: _wlanfairctl_<cmd>[_<sub>].
    for spec in fairness listen status top "tcp status" "scan status" "scan hold" \
        "scan set" "scan get" "scan unset" "ap status" "ap watch"; do
        fn=_wlanfairctl_${spec// /_}
        # An option in an _arguments spec is followed by its [description]
        # or closes a {-x,--xx} brace; exclusion lists "(-x --xx)" are not.
        got=$(sed -n "/^$fn() {/,/^}/p" "$zsh_comp" |
            grep -oE -- "--[A-Za-z0-9][A-Za-z0-9-]*=?[[}]" | sed 's/.$//' | LC_ALL=C sort -u)
        want=$(help_options "$spec")
        if [[ "$got" == "$want" ]]; then
            ok "zsh $fn options = $spec --help"
        else
            not_ok "zsh $fn options = $spec --help" "zsh:    $(flat "$got")" \
                "--help: $(flat "$want")"
        fi
        # Short ones: {-c+,--capacity=} ('+': takes a value).
        got=$(sed -n "/^$fn() {/,/^}/p" "$zsh_comp" |
            grep -oE -- "\{-[A-Za-z0-9]\+?," | tr -d '{,' | LC_ALL=C sort -u)
        want=$(help_shorts "$spec")
        if [[ "$got" == "$want" ]]; then
            ok "zsh $fn short options = $spec --help"
        else
            not_ok "zsh $fn short options = $spec --help" "zsh:    $(flat "$got")" \
                "--help: $(flat "$want")"
        fi
    done
else
    not_ok "zsh completion file $zsh_comp"
fi

echo "1..$n"
((failed == 0))
