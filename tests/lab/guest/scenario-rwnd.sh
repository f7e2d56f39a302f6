#!/bin/bash
# guest/scenario-rwnd.sh - wlanfair-apd's receive-window actuator (rwnd,
# SAP-LAW: rwnd-policy=equal and rtt-fair) from the installed wlanfair-ap
# package, run by its shipped unit wlanfair-apd.service (DynamicUser,
# CAP_BPF, SystemCallFilter=bpf), against TCP's RTT bias and a queue that
# makes a game stream late; run INSIDE the VM as lab-scenario-rwnd.service.
#
# Topology (the root namespace is the AP: the unit has no namespace of
# its own, so the interface it controls must be there):
#
#   [rw-srv] rws0 ====== rwu0 [root: routes]  wfbr0 (bridge) -- rwp0 ====== rwc0 [rw-sta]
#   iperf3 -s x3          10.97.1.1          10.97.0.1         HTB C, FIFO    10.97.0.2
#   netem 30/50/100 ms    wlanfair-apd: interface=wfbr0,       Q packets      iperf3 -R x3,
#   by source port        stations-from=bridge-ports,                         game receiver,
#   game sender           clsact + wf_rwnd on wfbr0                           wlanfair-reportd
#
# - veth, not hwsim: the subject is the TCP window and the queue, not the
#   radio, and hwsim under TCG gives a throughput that moves with the
#   emulated CPU; here the bottleneck is an HTB of C = RWND_BOTTLENECK
#   (8 Mbit/s) on the AP's downlink port rwp0, far below what the VM
#   forwards (it stays mostly idle: facts *_cpu_idle_pct), with a FIFO of
#   RWND_QUEUE packets (100: 150 ms of full-size frames at 8 Mbit/s, more
#   with the TSO-sized packets veth passes on: 180-260 ms measured), deep
#   enough that uncontrolled TCP keeps a queue there: that is what makes
#   the RTT unfairness and the game's late datagrams.  A bridge because the daemon
#   needs a station table to control (stations-from=bridge-ports: one
#   port, one station) and a trusted report (wlanfair-reportd in rw-sta,
#   signed with the key the unit gets as a credential).
# - One client, three downloads (iperf3 -R, one server port each); the
#   server's egress delays each port's data by netem (30, 50, 100 ms:
#   the flows' RTTs) before the bottleneck; the game stream (rwnd-game.py,
#   120-byte UDP datagrams every 50 ms) has no added delay: its one-way
#   delay is the bottleneck's queue.
# - rwnd-capacity = RWND_CAPACITY (7.6M, 95 % of C, as the host test's 18
#   of 19 Mbit/s: what C carries as TCP goodput).
# Phases, each three fresh downloads of RWND_T s measured over
# RWND_FROM..RWND_TO plus the game. From 10 s: the first seconds are slow
# start, and until about 9 s rtt-fair is still lowering the RTTs of the
# flows whose handshake crossed the 30 ms flow's first queue (per-second
# Jain dips to 0.84-0.89 at 6-9 s in 3 of 7 runs). Jain over 6-19 s was
# 0.960-0.999 in those runs, over 10-19 s 0.971-0.998.
# free (the daemon stopped), equal, rtt-fair (the daemon started with
# that policy, stopped after).
#
# Asserts (README.md): the unit runs with actuator=rwnd and loads without
# warnings; the program is on wfbr0's clsact ingress and egress while it
# runs and gone after systemctl stop, every qdisc as before; the status
# shows the policy and the three downloads held; equal gives the 30 ms
# flow more than twice the 100 ms one; rtt-fair: the 100 ms flow more than
# twice its equal-window rate (Jain >= 0.95 is a fact: see the checks) and >= 90 %
# of the uncontrolled total; the game's delay and jitter far lower under
# rtt-fair than uncontrolled.
set -u
. /mnt/host/lab/lib.sh
lab_begin
cd "$LAB_SHARE/lab" || exit 1

AUNIT=wlanfair-apd.service
APD=/usr/libexec/wlanfair/wlanfair-apd
REPORTD=/usr/libexec/wlanfair/wlanfair-reportd
STATUS=/run/wlanfair-apd/status.json
CONF=/etc/wlanfair/apd.conf
KEYF=/etc/wlanfair/apd.key
DROPIN=/etc/systemd/system/$AUNIT.d/lab-rwnd.conf
W=/run/lab-rwnd
NS_SRV=rw-srv NS_STA=rw-sta BR=wfbr0
AP_IP=10.97.0.1 STA_IP=10.97.0.2 UP_IP=10.97.1.1 SRV_IP=10.97.1.2
GAME_PORT=7000
RWND_BOTTLENECK=${RWND_BOTTLENECK:-8mbit}
RWND_QUEUE=${RWND_QUEUE:-100}
RWND_CAPACITY=${RWND_CAPACITY:-7.6M}
RWND_DELAYS=${RWND_DELAYS:-30 50 100}     # ms, one download each
RWND_DELAYS=${RWND_DELAYS//,/ }
read -r -a DELAYS <<< "$RWND_DELAYS"
RWND_T=${RWND_T:-20}
RWND_FROM=${RWND_FROM:-10}
RWND_TO=${RWND_TO:-19}

nsx() { local ns=$1; shift; ip netns exec "$ns" "$@"; }
# ge A B / lt A B: numeric comparisons that fail on "None" or "" (awk:
# a python3 start costs about a second under TCG)
num() { [[ $1 =~ ^-?[0-9]+(\.[0-9]+)?$ ]]; }
ge() { num "$1" && num "$2" && awk -v a="$1" -v b="$2" 'BEGIN {exit !(a >= b)}'; }
lt() { num "$1" && num "$2" && awk -v a="$1" -v b="$2" 'BEGIN {exit !(a < b)}'; }
within() { ge "$1" "$2" && ge "$3" "$1"; }   # V LO HI
# mul F X: F x X, or None when X is not a number
mul() { if num "$2"; then awk -v f="$1" -v x="$2" 'BEGIN {printf "%.3f", f * x}'; else echo None; fi; }
# fv KEY [N]: a recorded fact (its Nth word)
fv() { local v; v=$(sed -n "s/^$1=//p" "$FACTS" | tail -n 1); if [ -n "${2:-}" ]; then awk -v n="$2" '{print $n}' <<< "$v"; else echo "$v"; fi; }

# -------------------------------------------------------------- install ----
if installed; then fact installed_by_scenario no; else
    say "install wlanfair"; fact installed_by_scenario yes
    check install "the README's install commands failed (see log.txt)" deb_install
fi
say "install wlanfair-ap"
deb_install_ap; rc=$?
case $rc in
    0) pass ap-package-installed ;;
    2) fail ap-package-installed "no wlanfair-ap_*.deb next to the wlanfair .deb"; exit 1 ;;
    *) fail ap-package-installed "the README's install commands failed for wlanfair-ap (see log.txt)"; exit 1 ;;
esac
fact apd_version "$($APD --version 2>&1 | head -1)"
# (postinst may have tried to start it with the shipped apd.conf, which
# names no interface: what it did is a fact, the phases start it afresh)
fact apd_state_after_install "$(systemctl show -p ActiveState,Result --value $AUNIT | tr '\n' ' ')"
timeout 60 systemctl stop $AUNIT; systemctl reset-failed $AUNIT 2>/dev/null
# Plain TCP on the client, as in the paper: no ackloss CC, no scan guard.
STOPPED_UNITS=()
for u in wlanfair-tcp wlanfair-scand wlanfair-reportd; do
    systemctl is-active -q $u.service && run 60 systemctl stop $u.service && STOPPED_UNITS+=($u.service)
done

# ------------------------------------------------------------- topology ----
FWD_BEFORE=$(sysctl -n net.ipv4.ip_forward)
cleanup() {
    say "cleanup"
    timeout 60 systemctl stop $AUNIT 2>/dev/null
    rm -f "$DROPIN"; systemctl daemon-reload
    local ns
    for ns in $NS_SRV $NS_STA; do ip netns pids $ns 2>/dev/null | xargs -r kill 2>/dev/null; done
    sleep 0.5
    for ns in $NS_SRV $NS_STA; do
        ip netns pids $ns 2>/dev/null | xargs -r kill -9 2>/dev/null
        ip netns del $ns 2>/dev/null
    done
    ip link del $BR 2>/dev/null
    sysctl -qw net.ipv4.ip_forward="$FWD_BEFORE"
    [ ${#STOPPED_UNITS[@]} = 0 ] || run 60 systemctl start "${STOPPED_UNITS[@]}"
}
trap 'cleanup; lab_end' EXIT
say "topology: $NS_SRV -- root (AP, $BR) -- $NS_STA; C $RWND_BOTTLENECK, FIFO $RWND_QUEUE packets"
mkdir -p $W; rm -f $W/*
for ns in $NS_SRV $NS_STA; do ip netns add $ns; ip -n $ns link set lo up; done
ip link add rwu0 type veth peer name rws0 netns $NS_SRV
ip link add rwp0 type veth peer name rwc0 netns $NS_STA
ip link add $BR type bridge
ip link set rwp0 master $BR
# No IPv6 on the lab's links: its router and neighbour chatter would be
# non-TCP load and log noise, nothing more.
for d in rwu0 rwp0 $BR; do sysctl -qw net.ipv6.conf.$d.disable_ipv6=1; done
nsx $NS_SRV sysctl -qw net.ipv6.conf.all.disable_ipv6=1
nsx $NS_STA sysctl -qw net.ipv6.conf.all.disable_ipv6=1
ip addr add $UP_IP/24 dev rwu0
ip addr add $AP_IP/24 dev $BR
ip -n $NS_SRV addr add $SRV_IP/24 dev rws0
ip -n $NS_STA addr add $STA_IP/24 dev rwc0
for d in rwu0 rwp0 $BR; do ip link set $d up; done
ip -n $NS_SRV link set rws0 up; ip -n $NS_STA link set rwc0 up
ip -n $NS_SRV route add default via $UP_IP
ip -n $NS_STA route add default via $AP_IP
sysctl -qw net.ipv4.ip_forward=1
# The bottleneck: the AP's downlink port, HTB at C and a FIFO of Q packets.
# burst: ~30 ms at 8 Mbit/s, so that a late timer under TCG does not leave
# the link idle (as in the apd scenario).
tc qdisc add dev rwp0 root handle 1: htb default 1
tc class add dev rwp0 parent 1: classid 1:1 htb rate "$RWND_BOTTLENECK" ceil "$RWND_BOTTLENECK" burst 30k cburst 30k
tc qdisc add dev rwp0 parent 1:1 handle 10: pfifo limit "$RWND_QUEUE"
# The paths: each download's data (its server port) leaves the server
# late by its delay, so its RTT is that much; the rest (the game, the
# servers' other traffic) in band 4, not delayed.
nsx $NS_SRV tc qdisc add dev rws0 root handle 1: prio bands 4 priomap 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3
for k in 0 1 2; do
    nsx $NS_SRV tc qdisc add dev rws0 parent 1:$((k + 1)) handle $((k + 2))0: netem delay "${DELAYS[$k]}ms" limit 10000
    nsx $NS_SRV tc filter add dev rws0 parent 1: protocol ip prio 1 u32 match ip sport $((5201 + k)) 0xffff flowid 1:$((k + 1))
done
fact bottleneck "$RWND_BOTTLENECK"; fact bottleneck_queue_pkts "$RWND_QUEUE"
fact rwnd_capacity "$RWND_CAPACITY"; fact path_delays_ms "${DELAYS[*]}"
fact phase_seconds "$RWND_T"; fact measured_s "$RWND_FROM-$RWND_TO"
fact cc "$(nsx $NS_SRV sysctl -n net.ipv4.tcp_congestion_control)"
for k in 0 1 2; do
    nsx $NS_SRV iperf3 -s -B $SRV_IP -p $((5201 + k)) > "$OUT/iperf3-s-$k.log" 2>&1 & LAB_PIDS+=($!)
done
ping_ok() { nsx $NS_STA ping -c 1 -W 2 $SRV_IP >/dev/null 2>&1; }
if wait_until 15 ping_ok; then pass client-reaches-servers
else fail client-reaches-servers "ping $SRV_IP from $NS_STA failed"; exit 1; fi
fact ping_ms "$(nsx $NS_STA ping -c 5 -i 0.2 -q $SRV_IP | awk -F/ '/^rtt/ {print $5}')"

# ------------------------------------------------- the daemon's set-up ----
# The key as a credential (the unit's documented way: the dynamic user
# cannot read a root-only file); the client's reporter signs with it.
install -d -m 0755 /etc/wlanfair
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' > $KEYF; chmod 600 $KEYF
mkdir -p "${DROPIN%/*}"
printf '[Service]\nLoadCredential=apd.key:%s\n' $KEYF > "$DROPIN"
systemctl daemon-reload
check_unit_clean $AUNIT
head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n' > $W/machine-id
nsx $NS_STA $REPORTD -i rwc0 --destination $AP_IP:7455 --key $KEYF --socket none \
    --textfile-dir none --machine-id $W/machine-id > "$OUT/reportd.log" 2>&1 & LAB_PIDS+=($!)

# What the daemon may change, as it is before its first start: every
# qdisc of the root namespace, the bridge's filters.
tc_snapshot() {
    tc -j qdisc show 2>&1; echo
    tc -j filter show dev $BR ingress 2>&1; echo
    tc -j filter show dev $BR egress 2>&1; echo
}
TC_BEFORE=$(tc_snapshot)
echo "$TC_BEFORE" > "$OUT/tc-before.txt"
tc_as_before() {
    local now; now=$(tc_snapshot)
    echo "$now" > "$OUT/tc-after-$1.txt"
    [ "$now" = "$TC_BEFORE" ] && return 0
    diff "$OUT/tc-before.txt" "$OUT/tc-after-$1.txt"; return 1
}
has_rwnd_filter() { tc filter show dev $BR "$1" 2>/dev/null | grep -q 'wf_rwnd'; }

# ---------------------------------------------------------- measurement ----
# phase NAME: three downloads and the game at once; NAME.json (rwnd-analyze.py).
phase() {
    local p=$1 k pids=() pg pr pvm
    say "phase $p: downloads over ${DELAYS[*]} ms and the game stream, $RWND_T s"
    tc -s qdisc show dev rwp0 > "$OUT/$p-bottleneck-before.txt"
    vmstat 1 $((RWND_T + 2)) > "$OUT/$p-vmstat.txt" 2>&1 & pvm=$!
    nsx $NS_STA timeout $((RWND_T + 15)) python3 rwnd-game.py recv $GAME_PORT $((RWND_T + 4)) "$OUT/$p-game.txt" \
        > "$OUT/$p-game-recv.log" 2>&1 & pr=$!
    wait_until 5 grep -q ready "$OUT/$p-game-recv.log"
    nsx $NS_SRV timeout $((RWND_T + 15)) python3 rwnd-game.py send $STA_IP $GAME_PORT $((RWND_T + 1)) \
        > "$OUT/$p-game-send.log" 2>&1 & pg=$!
    for k in 0 1 2; do
        ip netns exec $NS_STA timeout $((RWND_T + 40)) iperf3 -c $SRV_IP -p $((5201 + k)) -R -t "$RWND_T" -i 1 -J \
            > "$OUT/$p-${DELAYS[$k]}ms.json" 2>&1 & pids+=($!)
    done
    for k in "${pids[@]}"; do wait "$k"; done
    wait $pg; wait $pr; kill $pvm 2>/dev/null
    tc -s qdisc show dev rwp0 > "$OUT/$p-bottleneck-after.txt"; cat "$OUT/$p-bottleneck-after.txt"
    fact "${p}_cpu_idle_pct" "$(awk 'NR > 3 && $15 ~ /^[0-9]+$/ {s += $15; n++} END {if (n) printf "%.0f", s / n}' "$OUT/$p-vmstat.txt")"
    python3 rwnd-analyze.py "$RWND_FROM" "$RWND_TO" "$OUT/$p-game.txt" \
        "$OUT/$p-${DELAYS[0]}ms.json" "$OUT/$p-${DELAYS[1]}ms.json" "$OUT/$p-${DELAYS[2]}ms.json" > "$OUT/$p.json"
    cat "$OUT/$p.json"
    facts_of "$OUT/$p.json" "$p"
}
# facts_of FILE PREFIX: every member of a JSON object as a fact (one
# python3: under TCG each start costs about a second).
facts_of() {
    local k v
    while IFS='=' read -r k v; do fact "$k" "$v"; done < <(python3 - "$1" "$2" <<'PY'
import json, sys
for k, v in json.load(open(sys.argv[1])).items():
    if k in ('from_s', 'to_s', 'samples'):
        continue
    print('%s_%s=%s' % (sys.argv[2], k, ' '.join(map(str, v)) if isinstance(v, list) else v))
PY
)
}

# the status: field EXPR of the status file (EXPR uses d)
st() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($1)" "${2:-$STATUS}" 2>/dev/null; }
runs_rwnd() {
    [ "$(systemctl show -p ActiveState --value $AUNIT)" = active ] && [ "$(systemctl show -p NRestarts --value $AUNIT)" = 0 ] &&
        [ "$(st "d['actuator']")" = rwnd ] && [ "$(st "d['actuator_status']['rwnd_policy']")" = "$1" ]
}
# holds_3 POLICY: three senders moving and held (or more flows held:
# iperf3's control connections), with POLICY (the facts of the status).
holds_3() {
    ge "$(fv "$1_apd_flows_held_max")" 3 && [ "$(fv "$1_apd_senders_moving_max")" = 3 ] &&
        [ "$(fv "$1_apd_policy")" = "$1" ]
}
in_control() { [ "$(st "d['mode']")" = control ] && [ -n "$(st "d['actuator_status']['rwnd_policy']")" ]; }

# controlled POLICY: the packaged unit with actuator=rwnd and POLICY; a
# phase under it; stopped; its filters gone.
controlled() {
    local p=$1 poller
    say "wlanfair-apd.service: actuator=rwnd rwnd-policy=$p"
    cat > $CONF <<EOF
[apd]
interface=$BR
stations-from=bridge-ports
actuator=rwnd
rwnd-policy=$p
rwnd-capacity=$RWND_CAPACITY
textfile-dir=none
EOF
    systemctl reset-failed $AUNIT 2>/dev/null
    run 60 systemctl start $AUNIT
    # rwnd starts with control, at the first trusted report.
    if ! wait_until 30 in_control; then
        fail "$p-control" "not in control 30 s after the start: $(st "d['mode'], d['mode_reason']") ($(systemctl is-active $AUNIT))"
        journalctl -b --no-pager -u $AUNIT | tail -20
        timeout 60 systemctl stop $AUNIT
        # Why: the probe with the unit's user and capabilities, the
        # verifier's log included.
        G_MESSAGES_DEBUG=all timeout 60 setpriv --reuid=65534 --regid=65534 --clear-groups \
            --inh-caps=+net_admin,+net_raw,+bpf --ambient-caps=+net_admin,+net_raw,+bpf \
            $APD -c $CONF -o status= -o state=$W/check-state --check > "$OUT/$p-check.txt" 2>&1
        tail -n 30 "$OUT/$p-check.txt"
        return 1
    fi
    pass "$p-control"
    check "$p-service-runs-rwnd" "$(systemctl show -p ActiveState,NRestarts $AUNIT | tr '\n' ' '); status: actuator $(st "d['actuator']"), policy $(st "d['actuator_status']['rwnd_policy']")" \
        runs_rwnd "$p"
    check "$p-bpf-on-ingress" "no wf_rwnd filter on $BR ingress: $(tc filter show dev $BR ingress | tr '\n' ' ')" has_rwnd_filter ingress
    check "$p-bpf-on-egress" "no wf_rwnd filter on $BR egress: $(tc filter show dev $BR egress | tr '\n' ' ')" has_rwnd_filter egress
    ( while systemctl is-active -q $AUNIT; do
          { tr -d '\n' < $STATUS; echo; } 2>/dev/null; sleep 1
      done > "$OUT/$p-status.jsonl" ) & poller=$!
    phase "$p"
    kill $poller 2>/dev/null
    timeout 10 wlanfairctl ap status > "$OUT/$p-wlanfairctl.txt" 2>&1
    # The status during the measured seconds: the most flows held, and
    # the medians of what the daemon set.
    python3 - "$OUT/$p-status.jsonl" "$RWND_FROM" "$RWND_TO" > "$OUT/$p-status-summary.json" <<'PY'
import json, statistics, sys
rows = []
for line in open(sys.argv[1]):
    try:
        d = json.loads(line)
    except ValueError:
        continue
    a = d.get('actuator_status') or {}
    if a:
        rows.append((d['time_us'], a))
if not rows:
    print('{}'); sys.exit()
t0 = rows[0][0]
win = [a for t, a in rows if float(sys.argv[2]) <= (t - t0) / 1e6 <= float(sys.argv[3])] or [a for _, a in rows]
med = lambda k: round(statistics.median(a.get(k, 0) for a in win))
def port(f):
    return min(int(e.rsplit(':', 1)[1]) for e in f.get('endpoints', ['x:0']))
data = sorted((f for f in win[-1].get('flows_listed', [])
               if any(x.get('bytes', 0) > 1e6 for x in f.get('senders', []))), key=port)
print(json.dumps({'policy': win[-1].get('rwnd_policy'), 'rate_bps': med('rate_bps'), 'other_bps': med('other_bps'),
                  'capacity_bps': win[-1].get('capacity_bps'),
                  'flows_held_max': max(a.get('flows_held', 0) for a in win),
                  'senders_moving_max': max(a.get('senders_moving', 0) for a in win),
                  'targets_bytes': sorted(x.get('target_bytes', 0) for f in win[-1].get('flows_listed', [])
                                          for x in f.get('senders', []) if x.get('bytes', 0) > 1e6),
                  'rtt_handshake_ms': sorted(round(f.get('rtt_handshake_s', 0) * 1e3, 1)
                                             for f in win[-1].get('flows_listed', [])
                                             if any(x.get('bytes', 0) > 1e6 for x in f.get('senders', []))),
                  # By server port (the path's order), from TCP timestamps:
                  # smoothed and lowest, at the end of the measured window.
                  'rtt_timestamps_ms': [round(f.get('rtt_timestamps_s', 0) * 1e3, 1) for f in data],
                  'rtt_timestamps_min_ms': [round(f.get('rtt_timestamps_min_s', 0) * 1e3, 1) for f in data],
                  'samples': len(win)}))
PY
    cat "$OUT/$p-status-summary.json"
    local s=$OUT/$p-status-summary.json
    facts_of "$s" "${p}_apd"
    check "$p-status-holds-3-downloads" "status: flows_held max $(fv "${p}_apd_flows_held_max"), senders_moving max $(fv "${p}_apd_senders_moving_max"), policy $(fv "${p}_apd_policy"); wanted >= 3, 3, $p" \
        holds_3 "$p"
    run 60 systemctl stop $AUNIT
    # ExecStopPost= (--restore, which drops CAP_BPF with capset(): denied
    # by the unit's ~@privileged until it was let back in) exited 0.
    check "$p-stop-clean" "after stop: $(systemctl show -p Result,ExecMainStatus $AUNIT | tr '\n' ' '); $(journalctl -b --no-pager -o cat -u $AUNIT | grep -i 'capset\|control process exited' | tail -2 | tr '\n' ' ')" \
        eval '[ "$(systemctl show -p Result --value $AUNIT)" = success ] &&
              ! journalctl -b --no-pager -o cat -u $AUNIT | grep -qi "capset\|control process exited"'
    check "$p-stop-removes-bpf" "a wf_rwnd filter left on $BR: $(tc filter show dev $BR ingress; tc filter show dev $BR egress)" \
        eval '! has_rwnd_filter ingress && ! has_rwnd_filter egress'
    check "$p-stop-restores-qdiscs" "the root namespace's qdiscs or $BR's filters differ from before the start (tc-after-$p.txt)" tc_as_before "$p"
    journalctl -b --no-pager -o short-precise -u $AUNIT > "$OUT/apd-journal.txt"
}

# -------------------------------------------------------------- phases ----
phase free
controlled equal
controlled rtt-fair

# --------------------------------------------------------------- checks ----
say "checks"
F=$OUT/free.json E=$OUT/equal.json R=$OUT/rtt-fair.json
if [ -s "$E" ]; then
    check equal-favours-short-rtt "equal: ${DELAYS[0]} ms $(fv equal_flow_mbps 1), ${DELAYS[2]} ms $(fv equal_flow_mbps 3) Mbit/s; wanted more than 2x" \
        lt "$(mul 2 "$(fv equal_flow_mbps 3)")" "$(fv equal_flow_mbps 1)"
fi
if [ -s "$R" ] && [ -s "$F" ]; then
    # With the handshake RTT alone this held in 9 runs (0.961-0.999) and
    # not in a CI run on Debian 13 (0.873: the others' windows, from
    # handshakes taken behind a queue, kept one standing). Each flow's
    # current and lowest RTT from TCP timestamps make it hold.
    check rtt-fair-jain "rtt-fair: Jain $(fv rtt-fair_jain) ($(fv rtt-fair_flow_mbps 1) $(fv rtt-fair_flow_mbps 2) $(fv rtt-fair_flow_mbps 3) Mbit/s); wanted >= 0.95" \
        ge "$(fv rtt-fair_jain)" 0.95
    # The program's lowest timestamp RTT of each download is its path's
    # (netem delays the data, never less; +25 % and 10 ms of slack for
    # the emulated hop).
    for k in 0 1 2; do
        check "rtt-fair-timestamps-rtt-${DELAYS[$k]}ms" "lowest RTT from timestamps $(fv rtt-fair_apd_rtt_timestamps_min_ms $((k + 1))) ms for the ${DELAYS[$k]} ms path" \
            within "$(fv rtt-fair_apd_rtt_timestamps_min_ms $((k + 1)))" "$(mul 0.95 "${DELAYS[$k]}")" \
                   "$(awk -v d="${DELAYS[$k]}" 'BEGIN {print 1.25 * d + 10}')"
    done
    check rtt-fair-lifts-long-rtt "${DELAYS[2]} ms flow: rtt-fair $(fv rtt-fair_flow_mbps 3), equal $(fv equal_flow_mbps 3) Mbit/s; wanted more than 2x" \
        lt "$(mul 2 "$(fv equal_flow_mbps 3)")" "$(fv rtt-fair_flow_mbps 3)"
    check rtt-fair-total "rtt-fair total $(fv rtt-fair_total_mbps), uncontrolled $(fv free_total_mbps) Mbit/s; wanted >= 90 %" \
        ge "$(fv rtt-fair_total_mbps)" "$(mul 0.9 "$(fv free_total_mbps)")"
    # The game. Uncontrolled, TCP keeps the FIFO near full and swinging:
    # 100 packets, many of them TSO-sized through veth, measured 180-260
    # ms of delay at 8 Mbit/s, swinging by 100 ms and more between TCP's
    # losses. Held to windows of C at the paths' RTTs the queue is what
    # the windows' excess over the path holds: 9767 + 19047 + 43737 bytes
    # against 57 kB of bandwidth x base RTT in the first runs, about 15 ms.
    # So half the uncontrolled p95, for the delay and for its variation
    # (PDV: delay - the lowest, p95), has a margin (six runs: delay p95
    # 4-24 ms against 256-265, PDV 4-24 against 83-147). The
    # inter-arrival jitter |ia - 50 ms| is a fact, not a check: it also
    # holds the sender's late wake-ups under TCG (3-4 ms with an empty
    # queue, equal) and the residual queue's 50 ms swings: 0.37-0.76 of
    # the uncontrolled one in seven runs, no margin a check could hold.
    check rtt-fair-game-delay "game one-way delay p95: rtt-fair $(fv rtt-fair_game_delay_p95_ms) ms, uncontrolled $(fv free_game_delay_p95_ms) ms; wanted below half" \
        lt "$(fv rtt-fair_game_delay_p95_ms)" "$(mul 0.5 "$(fv free_game_delay_p95_ms)")"
    check rtt-fair-game-pdv "game delay variation (PDV p95): rtt-fair $(fv rtt-fair_game_pdv_p95_ms) ms, uncontrolled $(fv free_game_pdv_p95_ms) ms; wanted below half" \
        lt "$(fv rtt-fair_game_pdv_p95_ms)" "$(mul 0.5 "$(fv free_game_pdv_p95_ms)")"
fi
python3 - "$OUT" free equal rtt-fair > "$OUT/figures.json" <<'PY'
import json, os, sys
out, fig = sys.argv[1], {}
for p in sys.argv[2:]:
    for suffix, key in (('.json', 'measured'), ('-status-summary.json', 'apd')):
        try:
            fig.setdefault(p, {})[key] = json.load(open(os.path.join(out, p + suffix)))
        except (OSError, ValueError):
            pass
json.dump(fig, sys.stdout, indent=1)
PY
