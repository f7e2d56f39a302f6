# shellcheck shell=bash
# guest/lib.sh - sourced by the runner and by every scenario INSIDE the VM.
#
# Results: each scenario writes to /mnt/host/out/<scenario>/
#   results.txt   one line per check: "PASS name" or "FAIL name: detail"
#   facts.txt     "key=value" lines: measurements and observations that are
#                 recorded, not asserted (exposure level, throughput, ...)
#   summary.json  both of the above plus timing, written at exit
#   log.txt       everything the scenario printed (the runner tees it)
# Conventions: every command that could hang runs under 'timeout'; checks
# are named kebab-case and are unique within a scenario.

# shellcheck disable=SC2034  # the scenarios use what is set here
LAB_SHARE=/mnt/host
LAB_RUN=/run/lab                      # guest-local state of this boot
[ -r "$LAB_SHARE/env" ] && . "$LAB_SHARE/env"

UNIT=wlanfair-tcp.service
TCPD=/usr/libexec/wlanfair/wlanfair-tcpd
PINDIR=/sys/fs/bpf/wlanfair
SYSCTL=/proc/sys/net/ipv4

# The Wi-Fi lab: two mac80211_hwsim radios; wlan0's phy goes into netns
# "ap" (hostapd + dnsmasq + iperf3 server), wlan1 stays in the root netns
# and is connected by NetworkManager like a laptop's card.
SSID=wlanfair-lab
PSK=labpassword123
AP_IP=10.99.0.1
# regtest=5: hwsim's custom world regdomain, 20 scanned channels instead of
# ~130 (a full scan takes ~6 s instead of ~40 s under emulation).
HWSIM_OPTS=${HWSIM_OPTS:-regtest=5}
# The stations' beacon-loss detector, told this host's delays. mac80211
# declares a beacon lost after beacon_loss_count (7) intervals without
# one, 0.72 s, probes the AP and disconnects (reason 4) after
# max_probe_tries (5) probes unanswered for probe_wait_ms (500) each; its
# own comment says the count "may need to be somewhat higher than what
# hardware might detect to account for delays in the host processing
# frames". A TCG guest beside another on two cores stalls for longer than
# that (a 20-channel scan took 10-27 s there, 5-6 s alone): the station
# reported beacon losses the AP never had, the scan guard rightly allowed
# scans for 30 s after each, and the scan scenario's premises broke or
# the station dropped. 50 intervals (5.1 s) and 2 s per probe: a stall is
# not a loss. Read at association: set before a radio exists.
LAB_BEACON_LOSS_COUNT=${LAB_BEACON_LOSS_COUNT:-50}
LAB_PROBE_WAIT_MS=${LAB_PROBE_WAIT_MS:-2000}
mac80211_stall_tolerant() {
    local p=/sys/module/mac80211/parameters
    [ -d $p ] || run 30 modprobe mac80211 || return 1
    echo "$LAB_BEACON_LOSS_COUNT" > $p/beacon_loss_count &&
        echo "$LAB_PROBE_WAIT_MS" > $p/probe_wait_ms || return 1
    echo "mac80211: beacon_loss_count $(cat $p/beacon_loss_count), probe_wait_ms $(cat $p/probe_wait_ms), max_probe_tries $(cat $p/max_probe_tries)"
}

# ------------------------------------------------------------- logging ----
say() { printf '\n### %(%H:%M:%S)T [up %ss] %s\n' -1 "$(cut -d' ' -f1 /proc/uptime)" "$*"; }
# run SECONDS CMD...: show the command, run it bounded, show its status.
run() {
    local t=$1 rc; shift
    echo "\$ $*"
    timeout "$t" "$@"; rc=$?
    [ $rc = 124 ] && echo "[timed out after ${t} s]"
    echo "[rc=$rc]"
    return $rc
}

# ---------------------------------------------------- results and facts ----
pass() { echo "PASS $1" | tee -a "$RESULTS"; }
fail() { echo "FAIL $1: ${2:-failed}" | tee -a "$RESULTS"; }
# check NAME DETAIL CMD...: PASS if CMD succeeds, else FAIL with DETAIL.
check() {
    local name=$1 detail=$2; shift 2
    if "$@"; then pass "$name"; else fail "$name" "$detail"; fi
}
fact() { printf '%s=%s\n' "$1" "$2" >> "$FACTS"; echo "fact $1=$2"; }

# lab_versions: what this guest runs, as "name=version ..." (recorded with
# every scenario's results: the support table quotes them).
LAB_VERSION_PKGS="network-manager wpasupplicant hostapd systemd libbpf1 libglib2.0-0t64 libglib2.0-0 iw"
lab_versions() {
    local codename
    codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-?}")
    printf 'debian=%s kernel=%s ' "$codename" "$(uname -r)"
    # shellcheck disable=SC2086
    dpkg-query -W -f='${Package}=${Version}\n' $LAB_VERSION_PKGS 2>/dev/null | grep -v '=$' | tr '\n' ' ' | sed 's/ $//'
}

# write_summary DIR SCENARIO: DIR/summary.json from results.txt + facts.txt.
# Also used by the runner after a scenario was killed, so it takes its
# inputs as arguments and depends on nothing a scenario sets up.
write_summary() {
    python3 - "$1" "$2" <<'PY'
import json, os, subprocess, sys, time
d, name = sys.argv[1], sys.argv[2]
def lines(f):
    try:
        return [l.rstrip('\n') for l in open(os.path.join(d, f)) if l.strip()]
    except FileNotFoundError:
        return []
checks = []
for l in lines('results.txt'):
    status, _, rest = l.partition(' ')
    cname, _, detail = rest.partition(': ')
    checks.append({'name': cname, 'status': status, 'detail': detail or None})
facts = dict(l.split('=', 1) for l in lines('facts.txt') if '=' in l)
t0 = float((lines('.t0') or [time.time()])[0])
failed = sum(c['status'] != 'PASS' for c in checks)
versions = {}
try:
    versions = dict(kv.split('=', 1) for kv in
                    subprocess.run(['bash', '-c', '. /mnt/host/lab/lib.sh && lab_versions'],
                                   capture_output=True, text=True, timeout=20).stdout.split() if '=' in kv)
except (OSError, subprocess.SubprocessError):
    pass
s = {'scenario': name, 'ok': bool(checks) and failed == 0,
     'passed': len(checks) - failed, 'failed': failed,
     'duration_s': round(time.time() - t0, 1),
     'kernel': os.uname().release, 'versions': versions, 'checks': checks, 'facts': facts}
json.dump(s, open(os.path.join(d, 'summary.json'), 'w'), indent=2)
PY
}

# lab_begin: call first in every scenario.
lab_begin() {
    SCENARIO=${LAB_SCENARIO:?LAB_SCENARIO is set by the runner}
    OUT=$LAB_SHARE/out/$SCENARIO
    RESULTS=$OUT/results.txt
    FACTS=$OUT/facts.txt
    mkdir -p "$OUT"
    : > "$RESULTS"; : > "$FACTS"
    date +%s.%N > "$OUT/.t0"
    LAB_PIDS=()
    trap lab_end EXIT
    # RuntimeMaxSec stops the scenario's unit with SIGTERM: say so.
    trap 'fail scenario-terminated "SIGTERM: scenario timeout (${SCENARIO_TIMEOUT:-?} s)"; exit 1' TERM
    # shellcheck disable=SC1091
    . "$LAB_RUN/baseline.env"
    say "scenario $SCENARIO; kernel $(uname -r)"
}
lab_end() {
    local p
    for p in "${LAB_PIDS[@]}"; do kill "$p" 2>/dev/null; done
    wait 2>/dev/null
    write_summary "$OUT" "$SCENARIO"
    say "scenario $SCENARIO: $(grep -c '^PASS' "$RESULTS") passed, $(grep -c '^FAIL' "$RESULTS") failed"
    if grep -q '^FAIL' "$RESULTS" || ! [ -s "$RESULTS" ]; then exit 1; fi
    exit 0
}

# wait_until SECONDS CMD...: poll CMD every 0.5 s until it succeeds.
wait_until() {
    local t=$1 i; shift
    for ((i = 0; i < t * 2; i++)); do "$@" && return 0; sleep 0.5; done
    "$@"
}

# ------------------------------------------------ kernel / unit state ----
avail() { cat $SYSCTL/tcp_available_congestion_control; }
dflt() { cat $SYSCTL/tcp_congestion_control; }
allowed() { cat $SYSCTL/tcp_allowed_congestion_control; }
sysctls() { echo "available: $(avail)"; echo "default:   $(dflt)"; echo "allowed:   $(allowed)"; }
no_ackloss_cc() { ! { avail; dflt; allowed; } | grep -q ackloss; }
has_ackloss_ccs() { avail | grep -qw ackloss_cubic && avail | grep -qw ackloss_reno; }
sysctls_at_baseline() {
    [ "$(avail)" = "$BASE_AVAIL" ] && [ "$(dflt)" = "$BASE_DEFAULT" ] && [ "$(allowed)" = "$BASE_ALLOWED" ]
}
pins_empty() { [ ! -d $PINDIR ] || [ -z "$(ls -A $PINDIR)" ]; }
pins() { if [ -d $PINDIR ]; then echo "$PINDIR: [$(ls -A $PINDIR | tr '\n' ' ')]"; else echo "$PINDIR: absent"; fi; }
unit_prop() { systemctl show -p "$1" --value $UNIT 2>/dev/null; }
unit_state() { systemctl show -p ActiveState,SubState,MainPID,NRestarts,Result $UNIT | tr '\n' ' '; echo; }
unit_active() { systemctl is-active -q $UNIT; }
# Legacy registration (pinned struct_ops maps) below Linux 6.4.
kernel_below_6_4() {
    local maj min
    IFS=. read -r maj min _ <<< "$(uname -r)"
    (( maj < 6 || (maj == 6 && min < 4) ))
}
# libbpf_at_least_1_2 CHECK_OUTPUT: 'wlanfair-tcpd --check' printed libbpf >= 1.2.
libbpf_at_least_1_2() {
    local maj min
    IFS=. read -r maj min < <(awk '$1 == "libbpf" {print $2}' "$1")
    (( ${maj:-0} > 1 || (${maj:-0} == 1 && ${min:-0} >= 2) ))
}
journal_unit() { journalctl -b --no-pager -o short-precise -u $UNIT "$@"; }
# check_unit_clean UNIT: the packaged unit file loads on this systemd (252
# on Debian 12, 257 on Debian 13) without a warning: a directive one of
# them did not know would be ignored, and the hardening it stands for
# silently lost. Lines about other units (the image's own) are not ours to
# judge; --man=no: the image has no man for Documentation= pages.
check_unit_clean() {
    local u=$1 v w
    v=$(timeout 120 systemd-analyze verify --man=no "/usr/lib/systemd/system/$u" 2>&1 | grep -i 'wlanfair')
    check "unit-verify-clean-${u%.service}" "$(tr '\n' ' ' <<< "$v")" test -z "$v"
    # And what PID 1 said when it loaded the unit.
    w=$(journalctl -b --no-pager -o cat _PID=1 | grep -F "$u:" | grep -i 'unknown\|ignoring\|invalid\|not supported' | sort -u)
    check "unit-loaded-without-warnings-${u%.service}" "$(tr '\n' ' ' <<< "$w")" test -z "$w"
}
# state_dump: what a reader of log.txt needs when a check fails.
state_dump() { unit_state; sysctls; pins; }

# -------------------------------------------------------------- package ----
installed() { [ "$(dpkg-query -W -f='${db:Status-Abbrev}' wlanfair 2>/dev/null)" = "ii " ]; }
# The packages come from a signed apt repository (tools/apt-repo, built by
# wlanfair-lab from the .debs under test with a throwaway key, in
# $LAB_SHARE/repo), served in the guest on 127.0.0.1:8080, and are
# installed with the README's two commands as a user types them
# (readme-install: only the URL changes). A copy outside the 9p share.
# All dependencies must already be in the image (the guest has no network:
# apt update's Debian sources fail with a warning, as offline).
LAB_REPO_URL=http://127.0.0.1:8080
url_ok() { python3 -c 'import urllib.request,sys; urllib.request.urlopen(sys.argv[1], timeout=2)' "$1" 2>/dev/null; }
# repo_serve [new|old]: publish the repository of the .debs under test
# (new, the default) or of the release the upgrade starts from (old: only
# with the upgrade scenario); switching is what a release does to the
# real one. The server reads through the symlink "current" per request.
repo_serve() {
    local dir=/var/tmp/lab-repo which=${1:-new} src i
    case $which in new) src=$LAB_SHARE/repo ;; old) src=$LAB_SHARE/repo-old ;; *) echo "repo_serve: $which?"; return 1 ;; esac
    [ -f "$src/INSTALL" ] || { echo "no repository in $src"; return 1; }
    if ! [ -d $dir/$which ]; then
        mkdir -p $dir; rm -rf $dir/$which.tmp
        cp -r "$src" $dir/$which.tmp && mv $dir/$which.tmp $dir/$which || return 1
    fi
    ln -sfn $which $dir/current
    url_ok "$LAB_REPO_URL/INSTALL" && return 0
    bg repo python3 -m http.server --bind 127.0.0.1 --directory $dir/current 8080
    for i in $(seq 50); do url_ok "$LAB_REPO_URL/INSTALL" && return 0; sleep 0.2; done
    echo "the repository server did not answer on $LAB_REPO_URL"; return 1
}
# readme_install PKG [new|old]: the README's "Installing" commands for PKG.
readme_install() {
    repo_serve "${2:-new}" || return 1
    run 300 "$LAB_SHARE/lab/readme-install" --readme "$LAB_SHARE/lab/README.md" \
        --url "$LAB_REPO_URL" --package "$1"
}
# deb_install: wlanfair, as a user installs it.
deb_install() {
    local rc
    readme_install wlanfair; rc=$?
    dpkg-query -W -f='${Package} ${Version}\n' wlanfair
    installed && [ $rc = 0 ]
}
# deb_install_ap: the same for wlanfair-ap (scenarios apd and rwnd); 2 when
# the repository has none. Already installed at the version under test (by
# an earlier scenario of this boot): nothing to do, and a fact says so
# (under TCG a no-op run of the README's commands costs 18 s).
deb_install_ap() {
    local rc want
    compgen -G "$LAB_SHARE/repo/pool/main/w/wlanfair/wlanfair-ap_*.deb" >/dev/null || return 2
    want=$(dpkg-deb -f "$(ls "$LAB_SHARE"/deb/wlanfair-ap_*.deb | head -n 1)" Version 2>/dev/null)
    if [ "$(dpkg-query -W -f='${db:Status-Abbrev} ${Version}' wlanfair-ap 2>/dev/null)" = "ii  $want" ] && [ -n "$want" ]; then
        fact ap_installed_by_scenario no
        return 0
    fi
    fact ap_installed_by_scenario yes
    readme_install wlanfair-ap; rc=$?
    dpkg-query -W -f='${Package} ${Version}\n' wlanfair-ap
    [ "$(dpkg-query -W -f='${db:Status-Abbrev}' wlanfair-ap 2>/dev/null)" = "ii " ] && [ $rc = 0 ]
}

# ---------------------------------------------------------------- Wi-Fi ----
sta_ip() { ip -4 -o addr show dev wlan1 2>/dev/null | awk '{print $4}' | cut -d/ -f1; }
ap_up() { ip netns exec ap iw dev wlan0 info 2>/dev/null | grep -q "ssid $SSID"; }
sta_connected() { [ -n "$(sta_ip)" ] && iw dev wlan1 link 2>/dev/null | grep -q "SSID: $SSID"; }
# bg NAME CMD...: a helper process of the lab in its own transient unit, so
# that it outlives the scenario unit that started it (the next scenario
# reuses the AP) and the journal keeps its output.
bg() { local n=$1; shift; systemctl reset-failed "lab-$n" 2>/dev/null; systemd-run --quiet --unit="lab-$n" -p KillMode=mixed "$@"; }
# ensure_wifi: the AP and a NetworkManager-connected station.  Idempotent.
ensure_wifi() {
    local i
    if sta_connected && ap_up; then echo "Wi-Fi already up: wlan1 $(sta_ip)"; return 0; fi
    say "Wi-Fi: modprobe mac80211_hwsim radios=2 $HWSIM_OPTS; AP in netns ap"
    if ! [ -e /sys/class/net/wlan1 ] && ! ip netns list | grep -qw ap; then
        mac80211_stall_tolerant || return 1
        run 30 modprobe mac80211_hwsim radios=2 $HWSIM_OPTS || return 1
        wait_until 10 test -e /sys/class/net/wlan1 || return 1
    fi
    if ! ip netns list | grep -qw ap; then
        ip netns add ap
        iw phy "$(cat /sys/class/net/wlan0/phy80211/name)" set netns name ap || return 1
        ip -n ap link set lo up
        ip -n ap addr add $AP_IP/24 dev wlan0
    fi
    cat > /run/lab-hostapd.conf <<EOF
interface=wlan0
driver=nl80211
ctrl_interface=/run/hostapd
ssid=$SSID
country_code=US
hw_mode=g
channel=6
ieee80211n=1
wmm_enabled=1
wpa=2
wpa_key_mgmt=WPA-PSK
rsn_pairwise=CCMP
wpa_passphrase=$PSK
EOF
    systemctl is-active -q lab-hostapd || bg hostapd ip netns exec ap hostapd -t /run/lab-hostapd.conf
    wait_until 20 ap_up || { echo "hostapd did not bring the AP up"; journalctl -b --no-pager -u lab-hostapd | tail -20; return 1; }
    systemctl is-active -q lab-dnsmasq || bg dnsmasq ip netns exec ap dnsmasq --no-daemon \
        --conf-file=/dev/null --interface=wlan0 --bind-interfaces \
        --dhcp-range=10.99.0.2,10.99.0.20,1h --no-resolv --pid-file=/run/lab-dnsmasq.pid
    systemctl is-active -q lab-iperf3 || bg iperf3 ip netns exec ap iperf3 -s
    # NetworkManager's scan list must show the SSID before it can connect.
    for i in $(seq 30); do
        timeout 20 nmcli -t -f SSID device wifi list ifname wlan1 --rescan yes 2>/dev/null \
            | grep -qx "$SSID" && break
        sleep 1
    done
    nmcli -t -f NAME connection show | grep -qx lab && nmcli connection delete lab >/dev/null
    run 90 nmcli --wait 60 device wifi connect "$SSID" password "$PSK" ifname wlan1 name lab || {
        journalctl -b --no-pager -u NetworkManager -u wpa_supplicant | tail -40; return 1; }
    wait_until 20 sta_connected || return 1
    ip -br addr
    echo "station wlan1 $(sta_ip), AP $AP_IP"
}

# iperf_field FILE EXPR: a value from iperf3 -J output (EXPR uses d = JSON).
iperf_field() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1" 2>/dev/null; }

# json_val FILE KEY: a top-level value of the JSON object in FILE as Python
# prints it (None when absent, True, 0.95). One interpreter per file, not
# per value: the first call writes every value to FILE.vals, the others
# read that (under TCG a python3 start costs most of a second, and an
# analysis has dozens of facts and checks).
json_val() {
    [ "$1.vals" -nt "$1" ] || python3 - "$1" > "$1.vals" 2>/dev/null <<'PY'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except (OSError, ValueError):
    d = {}
for k, v in (d.items() if isinstance(d, dict) else ()):
    print(k, str(v).replace('\n', ' ').replace('\t', ' '), sep='\t')
PY
    awk -F'\t' -v k="$2" '$1 == k {sub(/^[^\t]*\t/, ""); print; f = 1; exit} END {if (!f) print "None"}' "$1.vals"
}

# ------------------------------------------------- wpa_supplicant (D-Bus) ----
# The harness's own view of the station's bgscan, straight from
# wpa_supplicant (not from the guard): the current network's "bgscan" as
# wpa_supplicant stores it, one layer of config quotes removed; "<unset>"
# when the network has none.
WPAS=fi.w1.wpa_supplicant1
wpas_if() { busctl --system call $WPAS /fi/w1/wpa_supplicant1 $WPAS GetInterface s "${1:-wlan1}" 2>/dev/null | awk '{gsub(/"/, "", $2); print $2}'; }
wpas_net() { busctl --system get-property $WPAS "$(wpas_if "${1:-wlan1}")" $WPAS.Interface CurrentNetwork 2>/dev/null | awk '{gsub(/"/, "", $2); print $2}'; }
bgscan_get() {
    local net
    net=$(wpas_net "${1:-wlan1}")
    case $net in ''|/) echo "<no-network>"; return 1 ;; esac
    busctl --system --json=short get-property $WPAS "$net" $WPAS.Network Properties 2>/dev/null | python3 -c '
import json, sys
v = json.load(sys.stdin)["data"].get("bgscan", {}).get("data")
if v is None:
    print("<unset>")
else:
    print(v[1:-1] if len(v) >= 2 and v[0] == v[-1] == "\"" else v)'
}
# bgscan_set VALUE [IFACE [KEY TYPE VALUE]...]: what NetworkManager does not
# offer, and what a forced test setup needs (e.g. "simple:3:-10:3": a scan
# every 3 s), with more network properties in the same call.
bgscan_set() {
    local v=$1 ifc=${2:-wlan1}; shift $(( $# >= 2 ? 2 : 1 ))
    busctl --system set-property $WPAS "$(wpas_net "$ifc")" $WPAS.Network Properties 'a{sv}' \
        $(( 1 + $# / 3 )) bgscan s "$v" "$@"
}
signal_dbm() { iw dev wlan1 link 2>/dev/null | awk '/signal:/ {print $2}'; }

# ----------------------------------------------------------- scan guard ----
# The forced bgscan of the scan and upgrade scenarios and the guard's
# observable state (scenario-scan.sh says why each is so).
SUNIT=wlanfair-scand.service
FORCED=${SCAN_BGSCAN:-simple:3:-10:3}
# 2.4 GHz 1-11, 5 GHz 36-48 and 149-165 (the AP is on channel 6).
SCAN_FREQS=${SCAN_FREQS:-2412 2417 2422 2427 2432 2437 2442 2447 2452 2457 2462 5180 5200 5220 5240 5745 5765 5785 5805 5825}
sunit_active() { systemctl is-active -q $SUNIT; }
sunit_state() { systemctl show -p ActiveState,SubState,MainPID,NRestarts,Result $SUNIT | tr '\n' ' '; echo; }
journal_scand() { journalctl -b --no-pager -o short-precise -u $SUNIT "$@"; }
bgscan_is() { [ "$(bgscan_get)" = "$1" ]; }
# bgscan_force: the forced bgscan and its channels on the current network
# (NetworkManager's AddNetwork after a restart drops both).
bgscan_force() { bgscan_set "$FORCED" wlan1 scan_freq s "$SCAN_FREQS"; }
# beacon_loss_since T: the time (epoch s) of the last beacon loss the guard
# logged since T, or nothing. The emulated radio loses beacons under a
# loaded host; the guard then allows scans for beacon-loss-holdoff (30 s)
# by design, which breaks the premise of a check that wants suppression or
# an aborted scan in that window.
beacon_loss_since() {
    journalctl -b --no-pager -o short-unix -u $SUNIT --since "@${1%.*}" 2>/dev/null |
        awk '/beacon loss/ {t = $1} END {if (t != "") print t}'
}
# wait_suppressed SECS SINCE NAME: bgscan "" within SECS; when a beacon
# loss since SINCE explains a miss, once more until 35 s past it (a fact
# NAME says so) rather than fail or pass on a broken premise.
wait_suppressed() {
    local secs=$1 since=$2 name=$3 bl
    wait_until "$secs" bgscan_is "" && return 0
    bl=$(beacon_loss_since "$since")
    [ -n "$bl" ] || return 1
    fact "beacon_loss_waited_$name" "$bl"
    wait_until 35 bgscan_is ""
}
# The guard's own view: not suppressing (idle, or mode off). Forcing bgscan
# while it suppresses would race with it: it would restore its saved value.
guard_idle() {
    timeout 10 wlanfairctl scan status --json 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)["devices"]
sys.exit(0 if d and not any(x.get("suppressing") for x in d) else 1)'
}

# The guard's saved-bgscan record holds nothing: all restored.
state_clean() { ! grep -qs '^saved=' /run/wlanfair-scand/bgscan.state; }
