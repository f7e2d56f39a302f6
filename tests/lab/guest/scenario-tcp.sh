#!/bin/bash
# guest/scenario-tcp.sh - wlanfair-tcp.service on Debian 12's 6.1 kernel
# with real (emulated) Wi-Fi, run INSIDE the VM as lab-scenario-tcp.service.
#
# Asserts: 'wlanfair-tcpd --check' exits 0 and reports legacy registration
# (struct_ops_link no) below Linux 6.4; the packaged service is active; an
# iperf3 upload from the NetworkManager-connected station (wlan1) to the AP
# uses ackloss_cubic (iperf3 -J end.sender_tcp_congestion and ss -tin)
# while a loopback connection keeps the default; 'wlanfairctl tcp status
# --json' shows the daemon running and ACKs counted by ackloss_cubic; an
# 8-stream upload keeps no impossible window (skipped-callback repairs are
# recorded as facts); trafgen (testbed/trafgen.py) carries all of
# 12 transfers both ways between the station and the AP; after
# 'systemctl kill -s KILL' ExecStopPost leaves no ackloss CC registered
# (checked after a 'systemctl stop' if systemd restarted it first), and
# systemd restarts it; 'systemctl stop' restores the available list.
# Installs the .deb first unless it is installed; leaves it installed and
# the service stopped.  Wi-Fi comes up AFTER the service started, as on a
# laptop: the daemon must pick up wlan1's address as it appears.
set -u
. /mnt/host/lab/lib.sh
lab_begin

# --------------------------------------------------------------- install ----
if installed; then
    fact installed_by_scenario no
else
    say "install"
    fact installed_by_scenario yes
    check install "the README's install commands failed (see log.txt)" deb_install
fi

# --------------------------------------------------------------- --check ----
say "wlanfair-tcpd --check"
run 60 $TCPD --check > "$OUT/check.txt" 2>&1
rc=$?
cat "$OUT/check.txt"
check tcpd-check-exit-0 "exit status $rc: $(tr '\n' ' ' < "$OUT/check.txt")" test $rc = 0
while read -r k v; do [ -n "$v" ] && fact "check_$k" "$v"; done < <(grep -v '^\$\|^\[' "$OUT/check.txt")
if kernel_below_6_4; then
    check tcpd-check-struct-ops-link-no "kernel $(uname -r): $(grep struct_ops_link "$OUT/check.txt")" \
        grep -qx 'struct_ops_link no' "$OUT/check.txt"
elif libbpf_at_least_1_2 "$OUT/check.txt"; then
    # Linux 6.4+ and libbpf 1.2+ (Debian 13): struct_ops links.
    check tcpd-check-struct-ops-link-yes "kernel $(uname -r): $(tr '\n' ' ' < "$OUT/check.txt")" \
        grep -qx 'struct_ops_link yes' "$OUT/check.txt"
    LINK_PATH=1
fi

# --------------------------------------------------------------- service ----
say "service"
wait_until 30 unit_active || run 120 systemctl start $UNIT
unit_state
check service-active "$(unit_state)$(journal_unit | tail -3 | tr '\n' ' ')" unit_active
check service-registers-ccs "available: $(avail)" has_ackloss_ccs
if [ "${LINK_PATH:-0}" = 1 ]; then
    # Links go with the process: nothing to pin, and the log says so.
    check service-link-registration-not-pinned "$(pins)" pins_empty
    check service-logs-link-path "$(journal_unit | grep -m1 registering)" \
        eval 'journal_unit | grep -q "registering with struct_ops links"'
fi

# ----------------------------------------------------------------- Wi-Fi ----
if ensure_wifi; then
    pass wifi-station-connected
    WIFI=1
else
    fail wifi-station-connected "no NetworkManager-connected hwsim station (see log.txt)"
    WIFI=0
fi
STA_IP=$(sta_ip)
fact station_ip "$STA_IP"
# Recorded, not asserted (the log format is not an interface): the daemon
# follows addresses through rtnetlink and logs the new set. Its running
# invocation's log, whenever it began: in a boot shared with earlier
# scenarios the daemon started long before this one (a search from
# the start of this section waited out its 15 s, 30 under emulation,
# for nothing).
logged_address() {
    journalctl -b --no-pager -o cat _SYSTEMD_INVOCATION_ID="$(unit_prop InvocationID)" | grep -q "wlan1=$STA_IP"
}
if [ $WIFI = 1 ] && wait_until 15 logged_address; then
    fact daemon_logged_wifi_address yes
else
    fact daemon_logged_wifi_address no
fi

# ---------------------------------------------------------- upload over Wi-Fi ----
# needs_wifi NAME...: FAIL the checks that cannot run without the station.
needs_wifi() { local n; for n in "$@"; do fail "$n" "no Wi-Fi station"; done; }
# ss_until SECONDS FILTER FILE: sample 'ss -tin FILTER' into FILE until it
# shows an established connection (the transfer is under way).
ss_until() {
    local t=$1 f=$2 file=$3 i
    for ((i = 0; i < t * 2; i++)); do
        ss -tinH state established $f > "$file" 2>&1
        [ -s "$file" ] && grep -q 'cwnd' "$file" && return 0
        sleep 0.5
    done
    return 1
}
if [ $WIFI = 1 ]; then
    say "iperf3 upload: station $STA_IP (wlan1) -> AP $AP_IP"
    ip route get $AP_IP
    timeout 60 iperf3 -c $AP_IP -t 8 -J > "$OUT/iperf-wifi-up.json" 2>&1 &
    up=$!; LAB_PIDS+=("$up")
    sleep 2
    ss_until 10 "dst $AP_IP" "$OUT/ss-wifi.txt"
    cat "$OUT/ss-wifi.txt"
    wait $up; rc=$?
    cc=$(iperf_field "$OUT/iperf-wifi-up.json" "d['end'].get('sender_tcp_congestion')")
    fact wifi_upload_mbps "$(iperf_field "$OUT/iperf-wifi-up.json" "'%.1f' % (d['end']['sum_sent']['bits_per_second'] / 1e6)")"
    fact wifi_upload_retransmits "$(iperf_field "$OUT/iperf-wifi-up.json" "d['end']['sum_sent'].get('retransmits')")"
    check wifi-upload-iperf3-ok "iperf3 exit status $rc: $(head -c 300 "$OUT/iperf-wifi-up.json" | tr '\n' ' ')" test $rc = 0
    check wifi-upload-uses-ackloss-cubic "iperf3 sender_tcp_congestion: ${cc:-?}" test "$cc" = ackloss_cubic
    check wifi-upload-ss-shows-ackloss-cubic "ss -tin: $(grep -o 'cubic\|ackloss_[a-z]*\|reno' "$OUT/ss-wifi.txt" | sort -u | tr '\n' ' ')" \
        grep -q 'ackloss_cubic' "$OUT/ss-wifi.txt"
else
    needs_wifi wifi-upload-iperf3-ok wifi-upload-uses-ackloss-cubic wifi-upload-ss-shows-ackloss-cubic
fi

# --------------------------------------------------------------- trafgen ----
# The testbed's traffic generator over real Wi-Fi: the master in the AP's
# namespace, the station (NetworkManager's wlan1) as its one client, 1 MB
# transfers both ways and short ones; the station's uploads get
# ackloss_cubic from the scope, the AP's downloads the default.
if [ $WIFI = 1 ]; then
    say "trafgen: station $STA_IP <-> master on the AP $AP_IP"
    cat > "$OUT/lab.profile" <<'PROFILE'
[profile]
name = lab
trials = 12
direction = both
size = empirical 10k 100k 1M
idle = fixed 100ms
seed = 5
PROFILE
    timeout 120 ip netns exec ap python3 /mnt/host/lab/trafgen.py master --listen $AP_IP:7000 \
        --clients 1 --profile "$OUT/lab.profile" --out "$OUT/trafgen.jsonl" --register-timeout 30 \
        > "$OUT/trafgen-master.log" 2>&1 &
    tm=$!; LAB_PIDS+=("$tm")
    wait_until 10 eval "ip netns exec ap ss -Hltn | grep -q '$AP_IP:7001'"
    run 120 python3 /mnt/host/lab/trafgen.py client --master $AP_IP:7000 --id 1; rc=$?
    wait $tm; mrc=$?
    cat "$OUT/trafgen-master.log"
    python3 /mnt/host/lab/trafgen.py summary "$OUT/trafgen.jsonl" > "$OUT/trafgen-summary.json" 2>&1
    tg() { python3 -c "import json,sys; d=json.load(open('$OUT/trafgen-summary.json')); print($1)" 2>/dev/null; }
    fact trafgen_fct_p90_ms "$(tg "{k: round(v['p90'] * 1e3, 1) for k, v in d['fct_s'].items()}")"
    fact trafgen_mean_mbps "$(tg "round(d['clients']['1']['mean_bps'] / 1e6, 2)")"
    check trafgen-all-transfers "client exit $rc, master exit $mrc, complete $(tg "d['complete']") of 12" \
        test "$rc/$mrc/$(tg "d['complete']")" = 0/0/12
else
    needs_wifi trafgen-all-transfers
fi

# --------------------------------------------------------------- loopback ----
say "iperf3 over loopback (not Wi-Fi: keeps the default, $BASE_DEFAULT)"
timeout 60 iperf3 -s -1 -p 5299 -B 127.0.0.1 > "$OUT/iperf3-lo-server.log" 2>&1 &
LAB_PIDS+=($!)
sleep 1
timeout 60 iperf3 -c 127.0.0.1 -p 5299 -t 5 -J > "$OUT/iperf-lo.json" 2>&1 &
lo=$!; LAB_PIDS+=("$lo")
sleep 1
ss_until 10 "dst 127.0.0.1:5299" "$OUT/ss-lo.txt"
cat "$OUT/ss-lo.txt"
wait $lo; rc=$?
cc=$(iperf_field "$OUT/iperf-lo.json" "d['end'].get('sender_tcp_congestion')")
check loopback-keeps-default "iperf3 exit $rc, sender_tcp_congestion ${cc:-?}, default $BASE_DEFAULT" \
    test "$rc|$cc" = "0|$BASE_DEFAULT"
check loopback-ss-no-ackloss "ss -tin: $(grep -o 'ackloss_[a-z]*' "$OUT/ss-lo.txt" | sort -u | tr '\n' ' ')" \
    eval '[ -s "$OUT/ss-lo.txt" ] && ! grep -q ackloss "$OUT/ss-lo.txt"'

# ------------------------------------------------------ wlanfairctl status ----
say "wlanfairctl tcp status --json"
# The daemon rewrites its status file every second.
status_json() { timeout 20 wlanfairctl tcp status --json > "$OUT/tcp-status.json" 2>&1; }
acks() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(d['daemon']['registered']['ackloss_cubic']['$1'])" "$OUT/tcp-status.json" 2>/dev/null; }
acks_counted() { status_json && [ "$(acks acks)" -gt 0 ] 2>/dev/null; }
wait_until 5 acks_counted
cat "$OUT/tcp-status.json"
running=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['running'])" "$OUT/tcp-status.json" 2>/dev/null)
check tcp-status-running "running: ${running:-unparsable output}" test "$running" = True
if [ $WIFI = 1 ]; then
    check tcp-status-acks-counted "ackloss_cubic acks: $(acks acks)" acks_counted
    fact ackloss_cubic_acks "$(acks acks)"
    fact ackloss_cubic_ack_losses "$(acks ack_losses)"
    fact ackloss_cubic_halvings "$(acks halvings)"
else
    needs_wifi tcp-status-acks-counted
fi

# ------------------------------------------------- parallel upload ----
# Eight streams at once over Wi-Fi, so that both vCPUs run the BPF CC: on
# 6.18 the kernel then now and then skips a struct_ops callback and hands
# garbage to TCP (docs/ackloss.md). Whether Debian's kernel does too is
# recorded (the repair counters); that no connection keeps an impossible
# window for two samples in a row is asserted.
window_sampler() {   # FILE: one 'wlanfairctl tcp status --json' line per 0.5 s
    while :; do
        timeout 5 wlanfairctl tcp status --json 2>/dev/null | python3 -c 'import json,sys; print(json.dumps(json.load(sys.stdin)))' >> "$1"
        sleep 0.5
    done
}
if [ $WIFI = 1 ]; then
    say "iperf3 upload, 8 streams: station -> AP"
    fact vcpus "$(nproc)"
    : > "$OUT/windows.jsonl"
    window_sampler "$OUT/windows.jsonl" &
    sampler=$!; LAB_PIDS+=("$sampler")
    timeout 90 iperf3 -c $AP_IP -P 8 -t 20 -J > "$OUT/iperf-wifi-p8.json" 2>&1; rc=$?
    kill $sampler 2>/dev/null; wait $sampler 2>/dev/null
    status_json
    fact wifi_p8_mbps "$(iperf_field "$OUT/iperf-wifi-p8.json" "'%.1f' % (d['end']['sum_sent']['bits_per_second'] / 1e6)")"
    fact ackloss_cubic_repaired_ssthresh "$(acks repaired_ssthresh)"
    fact ackloss_cubic_repaired_cwnd "$(acks repaired_cwnd)"
    check wifi-p8-iperf3-ok "iperf3 -P 8 exit status $rc" test $rc = 0
    runaway=$(python3 - "$OUT/windows.jsonl" <<'PY'
import json, sys
last, bad, samples = {}, [], 0
for line in open(sys.argv[1]):
    try:
        conns = json.loads(line)["connections"]
    except (ValueError, KeyError):
        continue
    samples += 1
    now = {}
    for c in conns:
        key = (c["local"], c["remote"])
        now[key] = (c.get("ssthresh", 0) != 0x7fffffff and c.get("ssthresh", 0) > 0xffff) \
            or c.get("cwnd", 0) > 0xffff
        if now[key] and last.get(key):
            bad.append("%s ssthresh %s cwnd %s" % (c["remote"], c["ssthresh"], c["cwnd"]))
    last = now
print("%d samples; %s" % (samples, "; ".join(bad[:5]) or "none"))
PY
)
    fact wifi_p8_window_samples "$runaway"
    check wifi-p8-no-runaway-window "$runaway" eval 'echo "$runaway" | grep -q "; none$"'
else
    needs_wifi wifi-p8-iperf3-ok wifi-p8-no-runaway-window
fi

# ------------------------------------------------------------- SIGKILL ----
say "systemctl kill -s KILL $UNIT"
unit_active || run 120 systemctl start $UNIT
nr0=$(unit_prop NRestarts)
state_dump
run 20 systemctl kill -s KILL $UNIT
# Wait until ExecStopPost (wlanfair-tcpd --cleanup) is done: SubState
# auto-restart (Restart=on-failure), failed or dead - or until systemd has
# already restarted it (RestartSec=5).
outcome=
for ((i = 0; i < 120; i++)); do
    sub=$(unit_prop SubState); nr=$(unit_prop NRestarts)
    case $sub in auto-restart|failed|dead) outcome=stopped; break ;; esac
    if [ "$sub" = running ] && [ "${nr:-0}" -gt "${nr0:-0}" ]; then outcome=restarted; break; fi
    sleep 0.5
done
fact kill_outcome "${outcome:-none} (SubState $sub after $((i / 2)) s)"
state_dump
cleaned_up() { no_ackloss_cc && pins_empty && sysctls_at_baseline; }
stop_then_check() {   # systemd restarted it before we looked: stop, check
    run 60 systemctl stop $UNIT
    if cleaned_up; then pass kill-cleanup-unregisters
    else fail kill-cleanup-unregisters "restarted before the check; after stop: $(sysctls | tr '\n' ' ') $(pins)"; fi
}
case $outcome in
stopped)
    if cleaned_up; then
        pass kill-cleanup-unregisters
    elif [ "$(unit_prop NRestarts)" -gt "${nr0:-0}" ]; then
        stop_then_check      # the restart (5 s) came while we were checking
        outcome=restarted
    else
        fail kill-cleanup-unregisters "after ExecStopPost: $(sysctls | tr '\n' ' ') $(pins)"
    fi
    ;;
restarted) stop_then_check ;;
*) fail kill-cleanup-unregisters "the unit did not leave 'running' within 60 s of SIGKILL: $(unit_state)" ;;
esac
journal_unit | tail -12
if [ "$outcome" = stopped ]; then
    # Restart=on-failure: a SIGKILLed daemon comes back after RestartSec=5.
    restarted() { unit_active && [ "$(unit_prop NRestarts)" -gt "${nr0:-0}" ]; }
    if wait_until 30 restarted; then pass kill-restarted-by-systemd
    else fail kill-restarted-by-systemd "30 s after the kill: $(unit_state)"; fi
fi

# ---------------------------------------------------------------- stop ----
say "systemctl stop $UNIT"
unit_active || run 120 systemctl start $UNIT
check restart-registers-ccs "$(unit_state) available: $(avail)" eval 'unit_active && has_ackloss_ccs'
run 60 systemctl stop $UNIT
state_dump
check stop-restores-available "available: $(avail) (before install: $BASE_AVAIL)" test "$(avail)" = "$BASE_AVAIL"
check stop-sysctls-as-before "$(sysctls | tr '\n' ' ')" sysctls_at_baseline
check stop-no-pins "$(pins)" pins_empty
journal_unit | tail -5
