#!/bin/bash
# guest/scenario-apd.sh - wlanfair-apd, the access point's fairness
# controller, on real mac80211 (mac80211_hwsim): the paper's experiment
# (a near and a far host upload to a wired server through one AP), run
# INSIDE the VM as lab-scenario-apd.service.
#
# Topology (all in this VM, one network namespace each):
#   apd-near (wlan1) --+                                 (10.98.1.0/24)
#                      +-- wlan0 [apd-ap] wired0 ====== eth0 [apd-srv]
#   apd-far  (wlan2) --+   hostapd, routes, wlanfair-apd    iperf3 -s x2
#   (10.98.0.0/24, open: CCMP in software under TCG costs more CPU than
#   the two uploads; each station: wpa_supplicant + wlanfair-reportd)
# Three hwsim radios (this scenario reloads mac80211_hwsim with radios=3
# and removes it at the end, so a later scenario starts its own Wi-Fi).
#
# The far host.  hwsim models no airtime: every frame arrives, at the rate
# the sender picked, after no time on air.  So the far host is stood for by
# what hwsim does model and what a far host's TCP would see:
#   - a lower signal as the AP hears it: hwsim reports the sending
#     radio's rx_rssi (debugfs, -50 by default) + its transmit power; the
#     far radio's rx_rssi is APD_FAR_RSSI (-59: -59 dBm at the AP, the
#     near one -30 at 20 dBm);
#   - a longer path: both hosts' ACKs leave the server APD_BASE_DELAY
#     late (20 ms: a server a few hops away), the far host's
#     APD_FAR_DELAY later still (120 ms: the retries and the slow rates
#     of a far link, as its TCP sees them).
#   The two are chosen together, as the paper's cells had them: pi's first
#   delay D(0), fitted by its authors to their signals, is 144 ms for the
#   29 dB gap, and a near host needs about the far one's extra path to be
#   fair (100 to 200 ms gave Jain >= 0.97 here).  The common 20 ms also keeps what 1 ms of delay does to F
#   small (~0.3 points, the published Kp = 3 limit-cycles above ~0.33:
#   the cell without it had ~0.5 and 26 -> 0 -> 66 -> 0 -> 96 ms);
#   - one shared bottleneck, so that there is something to be unfair
#     about: the AP's wired port is shaped to APD_BOTTLENECK (HTB, a short
#     FIFO), well below what the emulated CPU carries, so the emulation's
#     speed does not decide the result.  5 Mbit/s: at 8, with CI's second
#     VM on the same two cores, the controlled cell carried 4.8-5.8 Mbit/s
#     (the CPU, not the port, was the bottleneck) and share+delay missed
#     Jain 0.95 in two CI runs; at 5 both releases, side by side, carried
#     4.6-4.8 and share+delay held 0.998 and 1.000.
# Uncontrolled, the short-RTT near host takes most of the bottleneck.
#
# Asserts (see README.md): the uncontrolled cell is unfair; pi + delay
# reaches Jain >= 0.95; share + delay reaches it and its last 20 s are
# fairer than the uncontrolled cell (held >= 0.95 is a fact: cubic comes
# back under a delay, see below); share + rate holds Jain >= 0.95 over
# the last 20 s (times to get there beside pi's are facts: a race of
# two noisy times is a benchmark's figure, not a check);
# wlanfair-apd's status shows both stations reporting and trusted; SIGTERM
# and kill -9 + --restore leave the AP interface's qdiscs, ingress filters
# and IFBs exactly as before; actuator=airtime is refused cleanly on hwsim
# (no airtime fairness in its wiphy) and changes nothing; ack-priority=yes
# loads as the unit runs it and sends the ACKs from the voice queue.
set -u
. /mnt/host/lab/lib.sh
lab_begin
cd "$LAB_SHARE/lab" || exit 1

APD=/usr/libexec/wlanfair/wlanfair-apd
REPORTD=/usr/libexec/wlanfair/wlanfair-reportd
W=/run/lab-apd                          # configs, key, status, state
NS_AP=apd-ap NS_NEAR=apd-near NS_FAR=apd-far NS_SRV=apd-srv
AP_WLAN_IP=10.98.0.1 NEAR_IP=10.98.0.11 FAR_IP=10.98.0.12
AP_WIRED_IP=10.98.1.1 SRV_IP=10.98.1.2
APD_SSID=wlanfair-apd
# Knobs (WLANFAIR_LAB_GUEST_ENV="APD_FAR_DELAY=80ms ...").
APD_BOTTLENECK=${APD_BOTTLENECK:-5mbit}
APD_QUEUE=${APD_QUEUE:-20}               # packets of FIFO at the bottleneck (48 ms)
APD_BASE_DELAY=${APD_BASE_DELAY:-20ms}    # both hosts' path to the server
APD_FAR_DELAY=${APD_FAR_DELAY:-120ms}    # the far host's extra path
APD_FAR_TXPOWER=${APD_FAR_TXPOWER:-0}    # dBm; the near station keeps 20
APD_FAR_RSSI=${APD_FAR_RSSI:--59}        # the far radio's hwsim rx_rssi (-100..-1)
APD_CC=${APD_CC:-cubic}
T_FREE=${T_FREE:-30}                     # s of each phase's upload
# pi's period is 20 s and the first only measures: 125 s gives it five
# steps and the 5 s hold after the fifth.  Its first step was fair in most
# runs (26-31 s), but not in every one: 122 -> 136 ms left the near host
# at 5.6 against 1.95 Mbit/s (CI, Debian 12, T_PI=65 then), and another
# run needed its third step (122, 120, 199 ms).
T_PI=${T_PI:-125}
T_SHARE=${T_SHARE:-40}
APD_PHASES=${APD_PHASES:-free pi share-delay share-rate}
APD_PHASES=${APD_PHASES//,/ }                 # commas too: WLANFAIR_LAB_GUEST_ENV splits at spaces

# (functions: not for '&' or 'timeout', where the process id or an
# executable is needed: there 'ip netns exec', which execs, is spelled out)
nsx() { local ns=$1; shift; ip netns exec "$ns" "$@"; }
ap() { nsx $NS_AP "$@"; }

# -------------------------------------------------------------- install ----
if installed; then fact installed_by_scenario no; else
    say "install wlanfair"; fact installed_by_scenario yes
    check install "the README's install commands failed (see log.txt)" deb_install
fi
say "install wlanfair-ap"
deb_install_ap; rc=$?
if [ $rc = 2 ]; then
    fail ap-package-installed "no wlanfair-ap_*.deb next to the wlanfair .deb (the controlled phases cannot run)"
elif [ $rc != 0 ]; then
    fail ap-package-installed "the README's install commands failed for wlanfair-ap (see log.txt)"
else
    pass ap-package-installed
fi
HAVE_APD=0; [ -x $APD ] && HAVE_APD=1
fact apd_installed "$HAVE_APD"
[ $HAVE_APD = 1 ] && check_unit_clean wlanfair-apd.service
[ $HAVE_APD = 1 ] && fact apd_version "$($APD --version 2>&1 | head -1)"
# The hosts run plain TCP here, as in the paper: no ackloss congestion
# control and no scan guard on the stations (both would be the package's
# other mechanisms at work, not the AP's).
STOPPED_UNITS=()
for u in wlanfair-tcp wlanfair-scand wlanfair-reportd; do
    systemctl is-active -q $u.service && run 60 systemctl stop $u.service && STOPPED_UNITS+=($u.service)
done

# ------------------------------------------------------------- topology ----
cleanup_net() {
    local ns
    for ns in $NS_AP $NS_NEAR $NS_FAR $NS_SRV; do
        ip netns pids $ns 2>/dev/null | xargs -r kill 2>/dev/null
    done
    sleep 0.5
    for ns in $NS_AP $NS_NEAR $NS_FAR $NS_SRV; do
        ip netns pids $ns 2>/dev/null | xargs -r kill -9 2>/dev/null
        ip netns del $ns 2>/dev/null
    done
    # the phys go back to the root namespace when theirs is deleted
    lsmod | grep -q '^mac80211_hwsim' && timeout 30 modprobe -r mac80211_hwsim
}
# (and the package's units as they were, for a scenario after this one)
final_cleanup() {
    say "cleanup"; cleanup_net
    [ ${#STOPPED_UNITS[@]} = 0 ] || run 60 systemctl start "${STOPPED_UNITS[@]}"
}

say "Wi-Fi: mac80211_hwsim radios=3 $HWSIM_OPTS; netns $NS_AP $NS_NEAR $NS_FAR $NS_SRV"
# Another scenario's AP (netns ap, lab-* units) goes first: this one needs
# three radios of its own.
for u in lab-hostapd lab-dnsmasq lab-iperf3; do systemctl stop $u 2>/dev/null; done
nmcli -t -f NAME connection show 2>/dev/null | grep -qx lab && nmcli connection delete lab >/dev/null
ip netns del ap 2>/dev/null
cleanup_net
mkdir -p $W; rm -f $W/*
mac80211_stall_tolerant && run 30 modprobe mac80211_hwsim radios=3 $HWSIM_OPTS || { fail wifi-setup "loading mac80211 or mac80211_hwsim failed (see log.txt)"; exit 1; }
hwsim_ifaces() { local d; for d in /sys/class/net/*/phy80211; do d=${d%/phy80211}; echo "${d##*/}"; done | sort -V; }
wait_until 10 eval '[ "$(hwsim_ifaces | wc -l)" -ge 3 ]'
mapfile -t IFS3 < <(hwsim_ifaces)
AP_IF=${IFS3[0]} NEAR_IF=${IFS3[1]} FAR_IF=${IFS3[2]}
echo "radios: AP $AP_IF, near $NEAR_IF, far $FAR_IF"
ls /sys/kernel/debug/ieee80211/*/hwsim/ 2>/dev/null | head -20
fact hwsim_debugfs "$(ls /sys/kernel/debug/ieee80211/"$(cat /sys/class/net/$AP_IF/phy80211/name)"/hwsim/ 2>/dev/null | tr '\n' ' ')"
fact ap_phy_airtime_fairness "$(iw phy "$(cat /sys/class/net/$AP_IF/phy80211/name)" info | grep -c AIRTIME_FAIRNESS)"
# The far station's signal at the AP, below what its tx power gives: hwsim
# reports the sender's rx_rssi (debugfs, default -50) + its tx power.
FAR_PHY=$(cat /sys/class/net/$FAR_IF/phy80211/name)
if [ "$APD_FAR_RSSI" != -50 ]; then
    # a u64 attribute that the driver reads as an int: -57 goes in as 2^64 - 57
    printf '%u\n' "$APD_FAR_RSSI" > /sys/kernel/debug/ieee80211/$FAR_PHY/hwsim/rx_rssi ||
        { fail wifi-setup "cannot set $FAR_PHY's hwsim rx_rssi to $APD_FAR_RSSI"; exit 1; }
fi
trap 'final_cleanup; lab_end' EXIT
for ns in $NS_AP $NS_NEAR $NS_FAR $NS_SRV; do ip netns add $ns; ip -n $ns link set lo up; done
iw phy "$(cat /sys/class/net/$AP_IF/phy80211/name)" set netns name $NS_AP
iw phy "$(cat /sys/class/net/$NEAR_IF/phy80211/name)" set netns name $NS_NEAR
iw phy "$(cat /sys/class/net/$FAR_IF/phy80211/name)" set netns name $NS_FAR
ip -n $NS_AP addr add $AP_WLAN_IP/24 dev $AP_IF
ip -n $NS_NEAR addr add $NEAR_IP/24 dev $NEAR_IF
ip -n $NS_FAR addr add $FAR_IP/24 dev $FAR_IF
# the wired side: AP (router) <-> server
ip link add wired0 netns $NS_AP type veth peer name eth0 netns $NS_SRV
ip -n $NS_AP addr add $AP_WIRED_IP/24 dev wired0
ip -n $NS_SRV addr add $SRV_IP/24 dev eth0
ip -n $NS_AP link set wired0 up
ip -n $NS_SRV link set eth0 up
ip -n $NS_SRV route add default via $AP_WIRED_IP
ap sysctl -qw net.ipv4.ip_forward=1

cat > $W/hostapd.conf <<EOF
interface=$AP_IF
driver=nl80211
ctrl_interface=$W/hostapd
ssid=$APD_SSID
country_code=US
hw_mode=g
channel=6
ieee80211n=1
wmm_enabled=1
EOF
ip netns exec $NS_AP hostapd -t $W/hostapd.conf > "$OUT/hostapd.log" 2>&1 &
LAB_PIDS+=($!)
ap_is_up() { ap iw dev $AP_IF info 2>/dev/null | grep -q "ssid $APD_SSID"; }
wait_until 30 ap_is_up || { fail wifi-setup "hostapd did not start the AP: $(tail -5 "$OUT/hostapd.log" | tr '\n' ' ')"; exit 1; }

start_sta() {   # NS IFACE NAME
    cat > $W/wpa-$3.conf <<EOF
ctrl_interface=$W/wpa-$3
network={
    ssid="$APD_SSID"
    key_mgmt=NONE
    scan_freq=2437
}
EOF
    ip -n "$1" link set "$2" up
    ip netns exec "$1" wpa_supplicant -t -D nl80211 -i "$2" -c $W/wpa-$3.conf > "$OUT/wpa-$3.log" 2>&1 &
    LAB_PIDS+=($!)
}
sta_assoc() { nsx "$1" iw dev "$2" link 2>/dev/null | grep -q "SSID: $APD_SSID"; }
start_sta $NS_NEAR "$NEAR_IF" near
start_sta $NS_FAR "$FAR_IF" far
if wait_until 60 sta_assoc $NS_NEAR "$NEAR_IF" && wait_until 30 sta_assoc $NS_FAR "$FAR_IF"; then
    pass stations-associated
else
    fail stations-associated "near: $(tail -3 "$OUT/wpa-near.log" | tr '\n' ' '); far: $(tail -3 "$OUT/wpa-far.log" | tr '\n' ' ')"
    exit 1
fi
ip -n $NS_NEAR route add default via $AP_WLAN_IP
ip -n $NS_FAR route add default via $AP_WLAN_IP
NEAR_MAC=$(nsx $NS_NEAR cat /sys/class/net/"$NEAR_IF"/address)
FAR_MAC=$(nsx $NS_FAR cat /sys/class/net/"$FAR_IF"/address)
fact near_mac "$NEAR_MAC"; fact far_mac "$FAR_MAC"

# The far station: lower transmit power (hwsim: signal = sender's power - 50).
nsx $NS_FAR iw dev "$FAR_IF" set txpower fixed $((APD_FAR_TXPOWER * 100))
nsx $NS_NEAR iw dev "$NEAR_IF" set txpower fixed 2000
# The shared bottleneck: the AP's wired port toward the server.
ap tc qdisc add dev wired0 root handle 1: htb default 1
# burst: ~48 ms at 5 Mbit/s, so that late timers under emulation (TCG)
# do not leave the link idle
ap tc class add dev wired0 parent 1: classid 1:1 htb rate "$APD_BOTTLENECK" ceil "$APD_BOTTLENECK" \
    burst 30k cburst 30k
ap tc qdisc add dev wired0 parent 1:1 handle 10: pfifo limit "$APD_QUEUE"
# Both hosts' path to the server (APD_BASE_DELAY), and the far host's
# longer one: their ACKs leave the server late.
far_total_ms=$(( ${APD_BASE_DELAY%ms} + ${APD_FAR_DELAY%ms} ))
nsx $NS_SRV tc qdisc add dev eth0 root handle 1: prio
nsx $NS_SRV tc qdisc add dev eth0 parent 1:1 handle 10: netem delay "$APD_BASE_DELAY" limit 10000
nsx $NS_SRV tc qdisc add dev eth0 parent 1:2 handle 20: netem delay "$APD_BASE_DELAY" limit 10000
nsx $NS_SRV tc qdisc add dev eth0 parent 1:3 handle 30: netem delay "${far_total_ms}ms" limit 10000
nsx $NS_SRV tc filter add dev eth0 parent 1: protocol ip prio 1 u32 match ip dst $FAR_IP/32 flowid 1:3
nsx $NS_SRV tc filter add dev eth0 parent 1: protocol ip prio 2 u32 match ip dst 0.0.0.0/0 flowid 1:1
fact bottleneck "$APD_BOTTLENECK"; fact bottleneck_queue_pkts "$APD_QUEUE"
fact base_delay "$APD_BASE_DELAY"; fact far_extra_delay "$APD_FAR_DELAY"; fact far_txpower_dbm "$APD_FAR_TXPOWER"; fact far_rx_rssi "$APD_FAR_RSSI"; fact cc "$APD_CC"

# -J: the clients' --get-server-output is then the server's JSON
ip netns exec $NS_SRV iperf3 -s -J -p 5201 > "$OUT/iperf3-s-5201.log" 2>&1 & LAB_PIDS+=($!)
ip netns exec $NS_SRV iperf3 -s -J -p 5202 > "$OUT/iperf3-s-5202.log" 2>&1 & LAB_PIDS+=($!)

ping_ok() { nsx "$1" ping -c 1 -W 2 $SRV_IP >/dev/null 2>&1; }
if wait_until 15 ping_ok $NS_NEAR && wait_until 15 ping_ok $NS_FAR; then pass stations-reach-server
else fail stations-reach-server "ping $SRV_IP from a station failed"; exit 1; fi
for who in near far; do
    ns=$NS_NEAR; [ $who = far ] && ns=$NS_FAR
    fact "${who}_ping_ms" "$(nsx $ns ping -c 5 -i 0.2 -q $SRV_IP | awk -F/ '/^rtt/ {print $5}')"
done
say "the AP's view of the stations"
ap iw dev $AP_IF station dump | tee "$OUT/station-dump-start.txt"
sta_signal() { ap iw dev $AP_IF station get "$1" 2>/dev/null | awk '/signal:/ {print $2; exit}'; }
fact near_signal_at_ap_dbm "$(sta_signal "$NEAR_MAC")"
fact far_signal_at_ap_dbm "$(sta_signal "$FAR_MAC")"
check far-signal-lower "near $(sta_signal "$NEAR_MAC") dBm, far $(sta_signal "$FAR_MAC") dBm at the AP" \
    test "$(sta_signal "$FAR_MAC")" -lt "$(sta_signal "$NEAR_MAC")"

# ------------------------------------------------------------ reporters ----
# One key for all (mode 0600, root's); each station its own machine id:
# the AP tells hosts apart by it.
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' > $W/report.key; chmod 600 $W/report.key
start_reportd() {   # NS IFACE NAME
    head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n' > $W/machine-id-$3
    ip netns exec "$1" $REPORTD -i "$2" --destination $AP_WLAN_IP:7455 --key $W/report.key \
        --socket none --textfile-dir none --machine-id $W/machine-id-$3 \
        > "$OUT/reportd-$3.log" 2>&1 &
    LAB_PIDS+=($!)
}
start_reportd $NS_NEAR "$NEAR_IF" near
start_reportd $NS_FAR "$FAR_IF" far

# ---------------------------------------------------------- measurement ----
# upload PHASE SECONDS: both stations upload to the server at once, one
# TCP flow each; iperf3 JSON with the server's per-second intervals.
# -l 16K: the server reads (and counts) in blocks of that size; iperf3's
# default, 128 KiB, quantises a 2 Mbit/s second to 1.05 or 2.1 Mbit/s.
upload() {
    local p=$1 t=$2 pn pf pv
    say "phase $p: both stations upload for $t s"
    date +%s.%N > "$OUT/$p-t0"
    ap tc -s qdisc show dev wired0 > "$OUT/$p-bottleneck-before.txt"
    vmstat 1 $((t + 2)) > "$OUT/$p-vmstat.txt" 2>&1 & pv=$!
    ip netns exec $NS_NEAR timeout $((t + 60)) iperf3 -c $SRV_IP -p 5201 -t "$t" -i 1 -l 16K -C "$APD_CC" -J \
        --get-server-output > "$OUT/$p-near.json" 2>&1 & pn=$!
    ip netns exec $NS_FAR timeout $((t + 60)) iperf3 -c $SRV_IP -p 5202 -t "$t" -i 1 -l 16K -C "$APD_CC" -J \
        --get-server-output > "$OUT/$p-far.json" 2>&1 & pf=$!
    wait $pn; wait $pf; kill $pv 2>/dev/null
    ap tc -s qdisc show dev wired0 > "$OUT/$p-bottleneck-after.txt"
    cat "$OUT/$p-bottleneck-after.txt"
    fact "${p}_cpu_idle_pct" "$(awk 'NR > 3 && $15 ~ /^[0-9]+$/ {s += $15; n++} END {if (n) printf "%.0f", s / n}' "$OUT/$p-vmstat.txt")"
    python3 apd-analyze.py "$p" "$OUT/$p-near.json" "$OUT/$p-far.json" > "$OUT/$p.json"
    python3 - "$OUT/$p.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print('  s  near   far  jain')
for i, (a, b, j) in enumerate(zip(r['near_mbps'], r['far_mbps'], r['jain_per_s'])):
    print(f'{i + 1:3d} {a:5.2f} {b:5.2f} {j}')
print({k: v for k, v in r.items() if not isinstance(v, list)})
PY
}
pval() { json_val "$OUT/$1.json" "$2"; }
# ge A B / lt A B: numeric comparisons that fail on "None"
ge() { python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) >= float(sys.argv[2]) else 1)" "$1" "$2" 2>/dev/null; }
lt() { python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) < float(sys.argv[2]) else 1)" "$1" "$2" 2>/dev/null; }

# The AP interface's traffic control, as it is before wlanfair-apd runs.
tc_snapshot() {
    ap tc -j qdisc show dev $AP_IF 2>&1; echo
    ap tc -j filter show dev $AP_IF ingress 2>&1; echo
    # (names only: 'ip -j link show type ifb' prints {} for each other link)
    ap ip -o link show type ifb 2>&1 | cut -d: -f2; echo
}
TC_BEFORE=$(tc_snapshot)
echo "$TC_BEFORE" > "$OUT/tc-before.txt"
echo "$TC_BEFORE"
tc_as_before() {   # NAME: the snapshot equals the one before; diff in the log
    local now; now=$(tc_snapshot)
    echo "$now" > "$OUT/tc-after-$1.txt"
    [ "$now" = "$TC_BEFORE" ] && return 0
    diff "$OUT/tc-before.txt" "$OUT/tc-after-$1.txt"
    return 1
}

# --------------------------------------------------------- uncontrolled ----
for p in $APD_PHASES; do [ "$p" = free ] && upload free "$T_FREE"; done
if [ -s "$OUT/free.json" ]; then
    for k in near_mean_mbps far_mean_mbps total_mean_mbps jain; do fact "free_$k" "$(pval free $k)"; done
    # The cell's premise: uncontrolled, the near host takes more. Its Jain
    # is a fact: 0.65-0.93 in 13 runs of 2026-11-30 (a check of < 0.9
    # failed one); near over far 1.78-6.4 in the same runs.
    far_x13=$(python3 -c "import sys; print(1.3 * float(sys.argv[1]))" "$(pval free far_mean_mbps)" 2>/dev/null)
    check uncontrolled-unfair "near $(pval free near_mean_mbps), far $(pval free far_mean_mbps) Mbit/s (Jain $(pval free jain)); wanted near > 1.3 x far" \
        lt "$far_x13" "$(pval free near_mean_mbps)"
fi

[ $HAVE_APD = 1 ] || exit 1

# ----------------------------------------------------------- wlanfair-apd ----
cat > $W/apd.conf <<EOF
[apd]
interface=$AP_IF
key=$W/report.key
status=$W/status.json
state=$W/state
textfile-dir=none
EOF
APD_PID=
# start_apd PHASE KEY=VALUE...: wlanfair-apd from the package, in the AP's
# namespace, with the scenario's configuration; its status file copied
# once a second to PHASE-status.jsonl.
start_apd() {
    local p=$1 o=() kv; shift
    for kv in "$@"; do o+=(-o "$kv"); done
    rm -f $W/status.json
    say "wlanfair-apd $* ($p)"
    ip netns exec $NS_AP $APD -c $W/apd.conf "${o[@]}" > "$OUT/apd-$p.log" 2>&1 &
    APD_PID=$!
    if ! wait_until 20 test -s $W/status.json; then
        echo "no status file after 20 s"; cat "$OUT/apd-$p.log"; return 1
    fi
    ( while kill -0 $APD_PID 2>/dev/null; do
          { tr -d '\n' < $W/status.json; echo; } 2>/dev/null
          sleep 1
      done > "$OUT/$p-status.jsonl" ) &
    LAB_PIDS+=($!)
}
# stop_apd PHASE [SIGNAL]: its exit status in APD_RC (124: still running
# 20 s after the signal; then it is killed).
stop_apd() {
    local i
    cp $W/status.json "$OUT/$1-status-last.json" 2>/dev/null
    kill -"${2:-TERM}" $APD_PID
    for ((i = 0; i < 40; i++)); do kill -0 $APD_PID 2>/dev/null || break; sleep 0.5; done
    if kill -0 $APD_PID 2>/dev/null; then kill -9 $APD_PID; wait $APD_PID; APD_RC=124
    else wait $APD_PID; APD_RC=$?; fi
    echo "wlanfair-apd exit status $APD_RC"; tail -n 30 "$OUT/apd-$1.log"
}
# stations_trusted FILE: every station in the status file reports and is
# trusted, and both of ours are there; the mode is control.
stations_trusted() {
    python3 - "$1" "$NEAR_MAC" "$FAR_MAC" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
st = {s['mac']: s for s in d.get('stations', [])}
bad = [m for m in sys.argv[2:] if m not in st]
bad += [f"{m}: reporting={s.get('reporting')} trusted={s.get('trusted')}" for m, s in st.items()
        if not (s.get('reporting') and s.get('trusted'))]
if d.get('mode') != 'control':
    bad.append(f"mode {d.get('mode')}: {d.get('mode_reason')}")
print('; '.join(bad) or 'ok')
sys.exit(1 if bad else 0)
PY
}
# controlled PHASE SECONDS KEY=VALUE...: one run of the experiment under
# wlanfair-apd; ends with the daemon still running.
controlled() {
    local p=$1 t=$2; shift 2
    start_apd "$p" "$@" || { fail "$p-apd-started" "no status file (see apd-$p.log)"; return 1; }
    upload "$p" "$t"
    for k in near_mean_mbps far_mean_mbps total_mean_mbps jain jain_last20 last20_near_mbps last20_far_mbps \
             jain_best_window t_converge_90_s t_converge_95_s t_converge_97_s; do
        fact "${p}_$k" "$(pval "$p" "$k")"
    done
}
# Time to Jain >= 0.95, the level pi's own check is held to: a fact for
# share beside pi's, no longer a check. share+delay was at 14 s in all
# four runs of 2026-11-26 (8 Mbit/s, one VM), pi at 28-29 s; with CI's
# two VMs on two cores share+delay was at 30 s against pi's 27 (Debian
# 13) and never against 73 (Debian 12), and at 5 Mbit/s side by side at
# 20 and 15 s against 23 and 36. pi cannot step before 20 s (its first
# period only measures), so at 15-20 s the order of the two is noise.
# The delay actuator's ceiling in both delay phases: the default 200 ms
# is about what this cell needs (100-200 ms gave Jain >= 0.97), so it
# decided some runs: in a CI run on Debian 13 share's near delay sat at
# 200 ms from 14 s to the end with the near host still at 4.26 Mbit/s
# against 2.69 (never 0.95 held). 400 leaves the controllers room; the
# daemon takes up to 1000.
APD_MAX_DELAY=${APD_MAX_DELAY:-400}
tconv() { local v; v=$(pval "$1" t_converge_95_s); [ "$v" = None ] && v=inf; echo "$v"; }
has_phase() { [[ " $APD_PHASES " == *" $1 "* ]]; }

# pi: the published method (delay only); its first 20 s period only
# measures, each later one steps.  Stopped with SIGTERM.
if has_phase pi && controlled pi "$T_PI" controller=pi actuator=delay max-delay=$APD_MAX_DELAY; then
    check pi-delay-converges "Jain (10 s windows) never >= 0.95 for 5 s in $T_PI s; last 20 s: $(pval pi jain_last20) (near $(pval pi last20_near_mbps), far $(pval pi last20_far_mbps) Mbit/s)" \
        test "$(pval pi t_converge_95_s)" != None
    # Reached, not held: with F_target 0.97 its integral lowers the delay
    # whenever F is above it, and cubic's time-based growth lets the near
    # host come back under the same delay, so pi swings between about 120
    # and 156 ms and its last 20 s fall fair or not by chance (0.856 in a
    # CI run): that is a fact, not a check.
    stop_apd pi TERM
    check pi-sigterm-exit-0 "exit status $APD_RC" test "$APD_RC" = 0
    check pi-sigterm-restores-tc "the AP's qdiscs/ingress filters/IFBs differ from before (tc-after-pi.txt)" tc_as_before pi
fi

# share with the delay actuator; the status file is read at the end.
if has_phase share-delay && controlled share-delay "$T_SHARE" controller=share actuator=delay max-delay=$APD_MAX_DELAY; then
    check status-stations-reporting-trusted "$(stations_trusted $W/status.json)" stations_trusted $W/status.json
    # Reached, and fairer than the cell uncontrolled; held is a fact.
    # Alone (62 % idle) share+delay held 0.976-1.0 over its last 20 s;
    # in CI, after four scenarios with the other release's VM beside it
    # (49-50 % idle), 0.949 and 0.908: the near host's delay climbed to
    # 290-400 ms and cubic's time-based growth kept it at 3 Mbit/s
    # against 1.6, as with pi above. Both got to 0.95 at 12-13 s, and the
    # last 20 s were 0.11-0.23 above the free phase's Jain in all five
    # runs of 2026-11-29 (free 0.72-0.89). The rate actuator holds.
    check share-delay-converges "Jain (10 s windows) never >= 0.95 for 5 s in $T_SHARE s; last 20 s: $(pval share-delay jain_last20)" \
        test "$(pval share-delay t_converge_95_s)" != None
    has_phase free && check share-delay-fairer-than-free "Jain of the last 20 s $(pval share-delay jain_last20), the uncontrolled cell's $(pval free jain)" \
        lt "$(pval free jain)" "$(pval share-delay jain_last20)"
    has_phase pi && fact share-delay_vs_pi_t_converge_95_s "$(tconv share-delay) $(tconv pi)"
    stop_apd share-delay TERM
    check share-delay-sigterm-exit-0 "exit status $APD_RC" test "$APD_RC" = 0
    check share-delay-sigterm-restores-tc "the AP's qdiscs/ingress filters/IFBs differ from before (tc-after-share-delay.txt)" \
        tc_as_before share-delay
fi

# share with the rate actuator (HTB on an IFB for uploads); ends with
# kill -9, then 'wlanfair-apd --restore' (what ExecStopPost= runs).
if has_phase share-rate && controlled share-rate "$T_SHARE" controller=share actuator=rate; then
    check share-rate-converges "Jain of the last 20 s $(pval share-rate jain_last20), wanted >= 0.95" \
        ge "$(pval share-rate jain_last20)" 0.95
    has_phase pi && fact share-rate_vs_pi_t_converge_95_s "$(tconv share-rate) $(tconv pi)"
    check kill9-left-changes "before the kill the AP's tc is as before: the kill test would prove nothing" \
        eval '! tc_as_before share-rate-running'
    stop_apd share-rate KILL
    check kill9-state-file-kept "no state file $W/state after kill -9" test -s $W/state
    run 60 ip netns exec $NS_AP $APD -c $W/apd.conf --restore > "$OUT/restore.txt" 2>&1; rc=$?
    cat "$OUT/restore.txt"
    check kill9-restore-exit-0 "wlanfair-apd --restore exit status $rc: $(tr '\n' ' ' < "$OUT/restore.txt")" test $rc = 0
    check kill9-restore-restores-tc "the AP's qdiscs/ingress filters/IFBs differ from before (tc-after-kill9-restore.txt)" \
        tc_as_before kill9-restore
    check kill9-restore-empties-state "state file left: $(head -c 300 $W/state 2>/dev/null)" test ! -s $W/state
fi

# airtime: hwsim's wiphy has no NL80211_EXT_FEATURE_AIRTIME_FAIRNESS: the
# probe says so, --check and a start exit non-zero, nothing changes.
say "actuator=airtime on hwsim"
# (the 6.1 kernel reports a station's weight only where the driver has
# airtime fairness: on hwsim none before and none after is what it can show)
weights() { ap iw dev $AP_IF station dump | awk '/^Station/ {m = $2} /airtime weight/ {print m, $NF}'; }
W_BEFORE=$(weights); echo "airtime weights before: ${W_BEFORE:-(iw shows none)}"
fact airtime_weights_before "$(echo $W_BEFORE)"
run 60 ip netns exec $NS_AP $APD -c $W/apd.conf -o actuator=airtime --check > "$OUT/airtime-check.txt" 2>&1; rc=$?
cat "$OUT/airtime-check.txt"
check airtime-check-refused "--check exit status $rc, wanted 1: $(tr '\n' ' ' < "$OUT/airtime-check.txt")" test $rc = 1
check airtime-check-says-why "no 'actuator FAILED: airtime: ... no airtime fairness' line: $(grep actuator "$OUT/airtime-check.txt")" \
    grep -q '^actuator .*FAILED: airtime: .*no airtime fairness' "$OUT/airtime-check.txt"
rm -f $W/status.json
run 60 ip netns exec $NS_AP $APD -c $W/apd.conf -o actuator=airtime > "$OUT/airtime-start.txt" 2>&1; rc=$?
cat "$OUT/airtime-start.txt"
check airtime-start-refused "start exit status $rc, wanted 1 at once: $(tr '\n' ' ' < "$OUT/airtime-start.txt")" test $rc = 1
check airtime-start-says-why "$(tr '\n' ' ' < "$OUT/airtime-start.txt")" grep -q 'no airtime fairness' "$OUT/airtime-start.txt"
check airtime-changes-no-tc "the AP's tc differs from before (tc-after-airtime.txt)" tc_as_before airtime
check airtime-weights-unchanged "before: '$W_BEFORE', after: '$(weights)'" test "$(weights)" = "$W_BEFORE"
check airtime-no-state "state file: $(head -c 300 $W/state 2>/dev/null)" test ! -s $W/state

# ack-priority=yes on hwsim, run as the unit runs it (user nobody with
# CAP_NET_ADMIN, CAP_NET_RAW and CAP_BPF ambient: the kernel's verifier
# without CAP_PERFMON): an upload's ACKs leave the AP as CS6 and mac80211
# puts them in its voice queue (netdev queue 1, the mq child "parent :1");
# a stop removes the filter.
say "ack-priority=yes on hwsim"
AQ=$W/ackprio; mkdir -p $AQ; chmod 777 $AQ
# Frames sent from the voice queue: netdev queue 1 where mac80211 has one
# per access category (6.1: an mq root), else the near station's TXQs of
# AC 0 (VO) in debugfs (6.12: internal TXQs, noqueue on the netdev).
vo_source() {
    if ap tc qdisc show dev $AP_IF | grep -q '^qdisc mq '; then echo mq; return; fi
    ls /sys/kernel/debug/ieee80211/*/netdev:$AP_IF/stations/$NEAR_MAC/aqm 2>/dev/null | head -1
}
vo_pkts() {
    local src; src=$(vo_source)
    case $src in
    mq) ap tc -s qdisc show dev $AP_IF | awk '/ parent :1 /{f = 1} f && /Sent/ {print $4; exit}' ;;
    /*) awk '$1 == "tid" {for (i = 1; i <= NF; i++) if ($i == "tx-packets") c = i; next}
             c && $1 ~ /^[0-9]+$/ && $2 == 0 {s += $c} END {if (c) print s + 0}' "$src" ;;
    esac
}
ack_filters() { ap tc filter show dev $AP_IF egress 2>/dev/null | grep -c 'handle 0xfa2'; }
fact ackprio_ap_qdiscs "$(ap tc qdisc show dev $AP_IF | tr '\n' ';')"
ip netns exec $NS_SRV iperf3 -s -1 -p 5209 > "$OUT/ackprio-iperf3-s.log" 2>&1 &
# (ip netns exec and setpriv exec into the daemon: $! is its pid)
ip netns exec $NS_AP setpriv --reuid=65534 --regid=65534 --clear-groups \
    --inh-caps=+net_admin,+net_raw,+bpf --ambient-caps=+net_admin,+net_raw,+bpf $APD -c $W/apd.conf -o key= -o actuator=none \
    -o ack-priority=yes -o state=$AQ/state -o status=$AQ/status.json > "$OUT/apd-ackprio.log" 2>&1 &
AQ_PID=$!
if wait_until 20 grep -q '(voice)' "$OUT/apd-ackprio.log"; then
    pass ack-priority-loads-as-the-unit
    VO0=$(vo_pkts)
    run 40 ip netns exec $NS_NEAR iperf3 -c $SRV_IP -p 5209 -t 6 > "$OUT/ackprio-iperf3-c.log" 2>&1
    VO1=$(vo_pkts)
    sleep 1.5   # a round after the upload: the status file's counters
    MARKED=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["ack_priority"]["marked_packets"])' \
        $AQ/status.json 2>/dev/null || echo 0)
    fact ackprio_marked_packets "$MARKED"; fact ackprio_vo_packets "$VO0 -> $VO1"
    check ack-priority-marks-acks "re-marked $MARKED segments during a 6-s upload, wanted >= 100" \
        test "${MARKED:-0}" -ge 100
    fact ackprio_vo_source "$(vo_source)"
    # (Debian 13 showed no netdev:$AP_IF/stations here: what is there instead)
    [ -n "$VO0" ] || fact ackprio_ap_phy_debugfs "$(ls /sys/kernel/debug/ieee80211/"$(ap cat /sys/class/net/$AP_IF/phy80211/name)"/ 2>&1 | tr '\n' ' ')"
    if [ -n "$VO0" ] && [ -n "$VO1" ]; then
        check ack-priority-voice-queue "voice queue sent $VO0 -> $VO1 packets, wanted >= $MARKED / 2 more" \
            test $(( VO1 - VO0 )) -ge $(( ${MARKED:-0} / 2 ))
    else
        echo "no voice queue counter here (source '$(vo_source)'): the queue is not checked"
    fi
else
    fail ack-priority-loads-as-the-unit "$(tail -5 "$OUT/apd-ackprio.log" | tr '\n' ' ')"
fi
kill -TERM $AQ_PID 2>/dev/null; wait $AQ_PID; AQ_RC=$?
cat "$OUT/apd-ackprio.log"
check ack-priority-stop-removes "exit status $AQ_RC, filters left $(ack_filters), state: $(head -c 200 $AQ/state 2>/dev/null)" \
    eval 'test $AQ_RC = 0 && test "$(ack_filters)" = 0 && test ! -s $AQ/state'

# ------------------------------------------------------------- figures ----
python3 - "$OUT" $APD_PHASES > "$OUT/figures.json" <<'PY'
import json, os, sys
out, phases = sys.argv[1], sys.argv[2:]
fig = {}
def brief(d):
    return {'time_us': d.get('time_us'), 'jain': d.get('round', {}).get('jain'),
            'level_bps': d.get('round', {}).get('level_bps'),
            'stations': {s['mac']: {k: s.get(k) for k in ('ap_up_bps', 'report_up_bps', 'share_bps',
                                                           'setting', 'why', 'signal_dbm', 'trusted')}
                         for s in d.get('stations', [])}}
for p in phases:
    try:
        r = json.load(open(os.path.join(out, p + '.json')))
    except (OSError, ValueError):
        continue
    st = []
    try:
        for line in open(os.path.join(out, p + '-status.jsonl')):
            try:
                st.append(brief(json.loads(line)))
            except ValueError:
                pass
    except OSError:
        pass
    # the daemon's status nearest to the end of each second of the upload
    try:
        t0 = float(open(os.path.join(out, p + '-t0')).read())
    except (OSError, ValueError):
        t0 = None
    al = []
    for k in range(r['seconds']):
        best = min(st, key=lambda x: abs(x['time_us'] / 1e6 - (t0 + k + 1))) if st and t0 else None
        al.append(best if best and abs(best['time_us'] / 1e6 - (t0 + k + 1)) < 1.5 else None)
    r['apd_status_per_s'] = al
    fig[p] = r
json.dump(fig, sys.stdout)
PY
echo "figures: $(wc -c < "$OUT/figures.json") bytes"
# The delay each station had, run-length encoded over the seconds.
for p in $APD_PHASES; do
    [ "$p" = free ] && continue
    fact "${p}_settings" "$(python3 - "$OUT/figures.json" "$p" "$NEAR_MAC" "$FAR_MAC" <<'PY'
import json, sys
f = json.load(open(sys.argv[1])).get(sys.argv[2], {})
out = []
for who, mac in (('near', sys.argv[3]), ('far', sys.argv[4])):
    runs = []
    for k, st in enumerate(f.get('apd_status_per_s', [])):
        se = ((st or {}).get('stations', {}).get(mac) or {}).get('setting') or {}
        v = (f"{se['delay_us'] / 1000:.0f}ms" if se.get('delay_us') else
             f"{se['rate_up_bps'] / 1e6:.1f}M" if se.get('rate_up_bps') else '-')
        if not runs or runs[-1][1] != v:
            runs.append([k + 1, v])
    out.append(who + ' ' + ' '.join(f'{t}s:{v}' for t, v in runs))
print('; '.join(out))
PY
)"
done
