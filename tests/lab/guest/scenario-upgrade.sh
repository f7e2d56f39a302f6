#!/bin/bash
# guest/scenario-upgrade.sh - an upgrade from the last release to the .debs
# under test, while everything is in use, then removal and purge; run
# INSIDE the VM as lab-scenario-upgrade.service.
#
# The last release (tests/lab/upgrade-from) is installed with the README's
# commands from its repository (repo-old, signed with the same key as the
# new one, as a real repository keeps its key), then used as a user does:
#  - tcp.conf, reportd.conf and apd.conf edited; a scan.conf.d drop-in
#    (idle-holdoff=12); scan.conf left as shipped;
#  - a NetworkManager profile setting by 'wlanfairctl scan set';
#  - wlanfair-reportd enabled with a key (LoadCredential drop-in), its
#    reports read by 'wlanfairctl listen --key' on the AP side;
#  - a long upload with ackloss_cubic; the network's bgscan (forced to a
#    known value) suppressed by that traffic; a scan hold held;
#  - wlanfair-apd (actuator=rwnd, a bridge with one station port whose
#    reporter signs with the AP's key) in control, its programs on the
#    bridge's hooks.
# Then the repository is switched to the new release and 'apt upgrade'
# runs (--force-confold: unattended-upgrades' answer to the conffile
# question). Asserts: the edited conffiles are kept and the new ones lie
# beside them as .dpkg-dist, the unedited scan.conf is the new one; the
# drop-in, the profile setting and the edits are in effect; every unit was
# restarted once (new InvocationID); the upload runs on across the
# loader's restart on the same socket, new connections get ackloss_cubic;
# bgscan is suppressed again by the new guard while the upload runs and is
# exactly the forced value after it; the hold is kept or its loss is
# reported (which one: a fact); the listener accepts the restarted
# reporter's reports with the same key and rejects none; the AP
# controller's programs were taken off before the new ones came (never two
# on a hook) and it is in control again; nothing older than the upgrade
# is left under /run/wlanfair* and no old struct_ops map remains. Then
# 'apt-get purge' of both packages with the services running: daemons
# stopped, every setting as before the install, nothing left but the
# administrator's own files.
set -u
. /mnt/host/lab/lib.sh
lab_begin
cd "$LAB_SHARE/lab" || exit 1

RUNIT=wlanfair-reportd.service
AUNIT=wlanfair-apd.service
APD=/usr/libexec/wlanfair/wlanfair-apd
REPORTD=/usr/libexec/wlanfair/wlanfair-reportd
ASTATUS=/run/wlanfair-apd/status.json
E=/etc/wlanfair
RKEY=$E/reportd.key AKEY=$E/apd.key
RDROP=/etc/systemd/system/$RUNIT.d/lab-key.conf
ADROP=/etc/systemd/system/$AUNIT.d/lab-key.conf
SDROP=$E/scan.conf.d/50-lab.conf
W=/run/lab-upgrade
MARK=$W/upgrade-marker
NS_STA=up-sta BR=wfup0 BR_IP=10.98.0.1 BSTA_IP=10.98.0.2
NEW_DEB=$(ls "$LAB_SHARE"/deb/wlanfair_*.deb)
NEW_AP_DEB=$(ls "$LAB_SHARE"/deb/wlanfair-ap_*.deb)
OLD_DEB=$(ls "$LAB_SHARE"/repo-old/pool/main/w/wlanfair/wlanfair_*.deb)
OLD_AP_DEB=$(ls "$LAB_SHARE"/repo-old/pool/main/w/wlanfair/wlanfair-ap_*.deb)
OLD_VER=$(dpkg-deb -f "$OLD_DEB" Version)
NEW_VER=$(dpkg-deb -f "$NEW_DEB" Version)
fact upgrade_from "$OLD_VER"; fact upgrade_to "$NEW_VER"
mkdir -p $W

version_of() { dpkg-query -W -f='${Version}' "$1" 2>/dev/null; }
ap_installed() { [ "$(dpkg-query -W -f='${db:Status-Abbrev}' wlanfair-ap 2>/dev/null)" = "ii " ]; }
invocation() { systemctl show -p InvocationID --value "$1"; }
sha() { [ -f "$1" ] && sha256sum < "$1" | cut -c1-16; }
# shipped DEB PATH: the sha of PATH as that .deb ships it (each .deb's
# /etc unpacked once: under TCG every dpkg-deb costs seconds)
shipped() {
    local d=$W/etc-${1##*/}
    [ -d "$d" ] || { mkdir -p "$d.tmp" && dpkg-deb --fsys-tarfile "$1" | tar -x -C "$d.tmp" ./etc && mv "$d.tmp" "$d"; }
    sha "$d$2"
}
nsx() { local ns=$1; shift; ip netns exec "$ns" "$@"; }
# What this scenario adds besides the packages: the AP's bridge and station
# namespace, the units' drop-ins.
ap_cleanup() {
    ip netns pids $NS_STA 2>/dev/null | xargs -r kill 2>/dev/null
    sleep 0.3
    ip netns pids $NS_STA 2>/dev/null | xargs -r kill -9 2>/dev/null
    ip netns del $NS_STA 2>/dev/null
    ip link del $BR 2>/dev/null
    rm -f "$RDROP" "$ADROP"; rmdir "${RDROP%/*}" "${ADROP%/*}" 2>/dev/null
    systemctl daemon-reload
}
trap 'ap_cleanup; lab_end' EXIT

# ------------------------------------------------------------ a clean start ----
say "start: nothing installed, a connected station"
# (An earlier scenario of this boot may have left them installed.)
if installed || ap_installed; then
    fact purged_first "$(dpkg-query -W wlanfair wlanfair-ap 2>/dev/null | tr '\n' ' ')"
    run 300 env DEBIAN_FRONTEND=noninteractive apt-get purge -y -q -o Dpkg::Use-Pty=0 wlanfair wlanfair-ap
fi
check not-installed-before "$(dpkg-query -W wlanfair wlanfair-ap 2>&1 | tr '\n' ' ')" eval '! installed && ! ap_installed'
check sysctls-before-install "$(sysctls | tr '\n' ' ')" sysctls_at_baseline
if ensure_wifi; then pass wifi-station-connected; else fail wifi-station-connected "no station (see log.txt)"; exit 1; fi
fact bgscan_set_by_networkmanager "$(bgscan_get)"

# -------------------------------------------------------- 1. the old release ----
say "install $OLD_VER from its repository (the README's commands), then wlanfair-ap"
check install-old-from-repo "the README's install commands failed against repo-old (see log.txt)" \
    readme_install wlanfair old
run 300 env DEBIAN_FRONTEND=noninteractive apt-get install -y -q -o Dpkg::Use-Pty=0 wlanfair-ap
check install-old-ap "wlanfair-ap: $(dpkg-query -W -f='${db:Status-Abbrev} ${Version}' wlanfair-ap 2>&1)" ap_installed
check old-versions "wlanfair $(version_of wlanfair), wlanfair-ap $(version_of wlanfair-ap); wanted $OLD_VER" \
    test "$(version_of wlanfair) $(version_of wlanfair-ap)" = "$OLD_VER $OLD_VER"
wait_until 30 unit_active
wait_until 30 sunit_active
check old-units-active "$UNIT $(systemctl is-active $UNIT), $SUNIT $(systemctl is-active $SUNIT)" eval 'unit_active && sunit_active'

# ------------------------------------------------------ 2. used as a user does ----
say "configuration: edited tcp.conf, reportd.conf, apd.conf; a scan.conf.d drop-in; a profile setting"
sed -i 's/^#thresh=1$/thresh=2/' $E/tcp.conf
grep -qx 'thresh=2' $E/tcp.conf || printf '\nthresh=2\n' >> $E/tcp.conf
sed -i 's/^#interfaces=wlan0$/interfaces=wlan1/' $E/reportd.conf
grep -qx 'interfaces=wlan1' $E/reportd.conf || fail edit-reportd-conf "no #interfaces=wlan0 line in reportd.conf"
install -d $E/scan.conf.d
printf '[scan]\nidle-holdoff=12\n' > $SDROP
# Earlier scenarios' profile keys go first: only ours count here.
for k in $(timeout 20 wlanfairctl scan get lab 2>/dev/null | cut -d= -f1); do run 20 wlanfairctl scan unset lab "$k"; done
run 20 wlanfairctl scan set lab roam-floor -95
run 60 systemctl restart $UNIT $SUNIT
tc_cfg=$(timeout 20 $TCPD --check 2>&1 | head -1)
sc_cfg=$(timeout 20 /usr/libexec/wlanfair/wlanfair-scand --check 2>&1 | grep -o 'idle-holdoff=[0-9]*')
check old-config-effective "tcpd --check: $tc_cfg; scand: $sc_cfg" \
    eval 'grep -qw thresh=2 <<< "$tc_cfg" && [ "$sc_cfg" = idle-holdoff=12 ]'
fact conffile_shas_old "tcp $(sha $E/tcp.conf) scan $(sha $E/scan.conf) reportd $(sha $E/reportd.conf)"

say "reporter: a key, enabled; the listener on the AP side with the same key"
# The AP controller's key and drop-in too: one daemon-reload for both
# (seconds each under TCG).
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' > $RKEY; chmod 600 $RKEY
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' > $AKEY; chmod 600 $AKEY
mkdir -p "${RDROP%/*}" "${ADROP%/*}"
printf '[Service]\nLoadCredential=reportd.key:%s\n' $RKEY > "$RDROP"
printf '[Service]\nLoadCredential=apd.key:%s\n' $AKEY > "$ADROP"
systemctl daemon-reload
timeout 1500 ip netns exec ap wlanfairctl listen --key $RKEY --json > "$OUT/listen.jsonl" 2> "$OUT/listen.err" &
LAB_PIDS+=($!)
run 60 systemctl enable --now $RUNIT
# report_after T: an accepted, authenticated report received after T (s)
report_after() {
    python3 - "$OUT/listen.jsonl" "$1" <<'PY'
import json, sys
t = float(sys.argv[2]) * 1e6
for line in open(sys.argv[1]):
    try:
        d = json.loads(line)
    except ValueError:
        continue
    if d.get('event') == 'report' and d.get('authenticated') and d.get('time_us', 0) > t:
        sys.exit(0)
sys.exit(1)
PY
}
rejects() { grep -c '"event":"reject"' "$OUT/listen.jsonl"; }
check reports-accepted-before "no authenticated report in 30 s; $(tail -2 "$OUT/listen.err" | tr '\n' ' ')" \
    wait_until 30 report_after 0

say "traffic: forced bgscan, a long upload with ackloss_cubic, a hold"
wait_until 30 guard_idle
bgscan_force
check bgscan-forced "bgscan '$(bgscan_get)'" bgscan_is "$FORCED"
# A server for new connections beside the lab's (which the upload keeps busy).
nsx ap timeout 1500 iperf3 -s -p 5202 > "$OUT/iperf3-s-5202.log" 2>&1 &
LAB_PIDS+=($!)
# 2 Mbit/s: traffic for the guard (about 170 packets/s against its 20)
# that leaves the emulated CPU to the upgrade.
timeout 1500 iperf3 -c $AP_IP -t 1200 -b 2M -i 5 --forceflush > "$OUT/upload.txt" 2>&1 &
UPID=$!; LAB_PIDS+=($UPID)
# upload_sock: "LOCAL_PORT CC BYTES_ACKED" of the upload's data socket
# (the one of the two to port 5201 that moved most).
upload_sock() {
    ss -tinHO state established '( dport = :5201 )' 2>/dev/null | awk '{
        n = split($3, a, ":"); cc = "?"; b = 0
        for (i = 4; i <= NF; i++) {
            if ($i ~ /^(ackloss_cubic|ackloss_reno|cubic|reno|bbr)$/) cc = $i
            if ($i ~ /^bytes_acked:/) { split($i, x, ":"); b = x[2] }
        }
        if (b >= best) { best = b; out = a[n] " " cc " " b }
    } END { print out }'
}
moving() { local b; b=$(upload_sock | awk '{print $3}'); [ "${b:-0}" -gt 500000 ]; }
wait_until 20 moving
read -r UPORT UCC UB0 <<< "$(upload_sock)"
fact upload_socket_before "port ${UPORT:-?} cc ${UCC:-?} bytes_acked ${UB0:-?}"
check upload-uses-ackloss-cubic-before "the upload's socket: ${UCC:-none}" test "${UCC:-}" = ackloss_cubic
t_s=$(date +%s)
check bgscan-suppressed-before "bgscan '$(bgscan_get)' while the upload runs" wait_suppressed 30 "$t_s" before
wlanfairctl scan hold --reason lab-upgrade -- sleep 1200 > "$OUT/hold.out" 2> "$OUT/hold.err" &
HPID=$!; LAB_PIDS+=($HPID)
hold_listed() {
    timeout 10 wlanfairctl scan status --json 2>/dev/null | python3 -c '
import json, sys
sys.exit(0 if any(h.get("reason") == "lab-upgrade" for h in json.load(sys.stdin).get("holds", [])) else 1)'
}
check hold-listed-before "wlanfairctl scan status: $(timeout 10 wlanfairctl scan status 2>&1 | grep -A2 holds | tr '\n' ' ')" \
    wait_until 10 hold_listed

# ------------------------------------------------------------- 2b. the AP ----
say "AP: $BR (one station port, $NS_STA), wlanfair-apd.service with actuator=rwnd"
ip netns add $NS_STA; ip -n $NS_STA link set lo up
ip link add upp0 type veth peer name upc0 netns $NS_STA
ip link add $BR type bridge
ip link set upp0 master $BR
for d in upp0 $BR; do sysctl -qw net.ipv6.conf.$d.disable_ipv6=1; done
nsx $NS_STA sysctl -qw net.ipv6.conf.all.disable_ipv6=1
ip addr add $BR_IP/24 dev $BR
ip -n $NS_STA addr add $BSTA_IP/24 dev upc0
ip link set upp0 up; ip link set $BR up; ip -n $NS_STA link set upc0 up
cat >> $E/apd.conf <<EOF
interface=$BR
stations-from=bridge-ports
actuator=rwnd
rwnd-policy=equal
rwnd-capacity=50M
textfile-dir=none
EOF
head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n' > $W/machine-id
nsx $NS_STA $REPORTD -i upc0 --destination $BR_IP:7455 --key $AKEY --socket none \
    --textfile-dir none --machine-id $W/machine-id > "$OUT/ap-station-reportd.log" 2>&1 &
LAB_PIDS+=($!)
systemctl reset-failed $AUNIT 2>/dev/null
run 60 systemctl enable --now $AUNIT
st() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($1)" "$ASTATUS" 2>/dev/null; }
in_control() { [ "$(st "d['mode']")" = control ] && [ "$(st "d['actuator_status']['rwnd_policy']")" = equal ]; }
# rwnd_ids HOOK: the ids of the wf_rwnd programs on the bridge's HOOK, comma-separated
rwnd_ids() { tc filter show dev $BR "$1" 2>/dev/null | awk '/wf_rwnd/ {for (i = 1; i < NF; i++) if ($i == "id") printf "%s%s", (n++ ? "," : ""), $(i + 1)}'; }
check apd-in-control-before "30 s after the start: $(st "d['mode'], d['mode_reason']"); $(journalctl -b --no-pager -o cat -u $AUNIT | tail -3 | tr '\n' ' ')" \
    wait_until 30 in_control
OLD_I=$(rwnd_ids ingress) OLD_E=$(rwnd_ids egress)
fact apd_programs_before "ingress ${OLD_I:-none} egress ${OLD_E:-none}"
check apd-programs-before "ingress '${OLD_I}' egress '${OLD_E}': one each wanted" \
    eval '[[ $OLD_I =~ ^[0-9]+$ ]] && [[ $OLD_E =~ ^[0-9]+$ ]]'
# The hooks every second through the upgrade: what the restart did to them.
( while :; do printf '%s i=%s e=%s\n' "$(date +%s.%N)" "$(rwnd_ids ingress)" "$(rwnd_ids egress)"; sleep 1; done ) \
    > "$OUT/ap-hooks.txt" 2>&1 &
HOOKS_PID=$!; LAB_PIDS+=($HOOKS_PID)

# ------------------------------------------------------------- 3. upgrade ----
say "upgrade: the repository now publishes $NEW_VER; apt update && apt upgrade"
declare -A INV
for u in $UNIT $SUNIT $RUNIT $AUNIT; do INV[$u]=$(invocation $u); done
SHA_TCP=$(sha $E/tcp.conf) SHA_REPORTD=$(sha $E/reportd.conf) SHA_APD=$(sha $E/apd.conf) SHA_DROP=$(sha $SDROP)
touch $MARK; sleep 1
t_up=$(date +%s.%N)
check repo-switched "the repository did not switch to the new release" repo_serve new
run 300 env DEBIAN_FRONTEND=noninteractive apt-get update -q -o Dpkg::Use-Pty=0
run 600 env DEBIAN_FRONTEND=noninteractive apt-get upgrade -y -q -o Dpkg::Use-Pty=0 -o Dpkg::Options::=--force-confold
rc=$?
t_done=$(date +%s.%N)
fact upgrade_s "$(awk -v a="$t_up" -v b="$t_done" 'BEGIN {printf "%.1f", b - a}')"
check upgrade "apt-get upgrade exit status $rc" test $rc = 0
check new-versions "wlanfair $(version_of wlanfair), wlanfair-ap $(version_of wlanfair-ap); wanted $NEW_VER" \
    test "$(version_of wlanfair) $(version_of wlanfair-ap)" = "$NEW_VER $NEW_VER"
for u in $UNIT $SUNIT $RUNIT $AUNIT; do
    wait_until 30 systemctl is-active -q $u
    check "restarted-${u%.service}" "$u: $(systemctl show -p ActiveState,SubState,NRestarts,Result $u | tr '\n' ' ')InvocationID ${INV[$u]} -> $(invocation $u)" \
        eval 'systemctl is-active -q $u && [ "$(invocation $u)" != "${INV[$u]}" ]'
done

# ----------------------------------------------------------- 4. conffiles ----
say "configuration after the upgrade"
ls -la $E $E/scan.conf.d
# An edited conffile the new release ships changed is kept, the new one
# beside it as .dpkg-dist; if it ships it unchanged, there is none (dpkg
# asks only when both changed). Which case each met is a fact.
for c in tcp:"$NEW_DEB":"$OLD_DEB":$SHA_TCP reportd:"$NEW_DEB":"$OLD_DEB":$SHA_REPORTD \
         apd:"$NEW_AP_DEB":"$OLD_AP_DEB":$SHA_APD; do
    IFS=: read -r n deb odeb before <<< "$c"
    now=$(sha $E/$n.conf) new=$(shipped "$deb" $E/$n.conf) dist=$(sha $E/$n.conf.dpkg-dist)
    check "$n-conf-kept" "$E/$n.conf: sha $now, before the upgrade $before" test "$now" = "$before"
    if [ "$new" != "$(shipped "$odeb" $E/$n.conf)" ]; then
        fact "${n}_conf_shipped" "changed in $NEW_VER"
        check "$n-conf-dpkg-dist" "$E/$n.conf.dpkg-dist: sha ${dist:-none}, the new package's $new" test "$dist" = "$new"
    else
        fact "${n}_conf_shipped" "unchanged in $NEW_VER"
        check "$n-conf-no-dpkg-dist" "$(ls $E/$n.conf.dpkg-* 2>&1)" eval '! ls $E/$n.conf.dpkg-* >/dev/null 2>&1'
    fi
done
now=$(sha $E/scan.conf) new=$(shipped "$NEW_DEB" $E/scan.conf)
check scan-conf-replaced "$E/scan.conf: sha $now, the new package's $new; $(ls $E/scan.conf.dpkg-* 2>&1)" \
    eval '[ "$now" = "$new" ] && ! ls $E/scan.conf.dpkg-* >/dev/null 2>&1'
check scan-dropin-kept "$SDROP: sha $(sha $SDROP), before $SHA_DROP" test "$(sha $SDROP)" = "$SHA_DROP"
tc_cfg=$(timeout 20 $TCPD --check 2>&1 | head -1)
sc_cfg=$(timeout 20 /usr/libexec/wlanfair/wlanfair-scand --check 2>&1 | grep -o 'idle-holdoff=[0-9]*')
floor=$(timeout 20 wlanfairctl scan get lab roam-floor 2>&1)
check tcp-conf-effective "$tc_cfg" grep -qw thresh=2 <<< "$tc_cfg"
check scan-dropin-effective "$sc_cfg" test "$sc_cfg" = idle-holdoff=12
check profile-setting-kept "wlanfairctl scan get lab roam-floor: $floor" test "$floor" = -95

# ----------------------------------------------------------------- 5. TCP ----
say "TCP: the upload across the loader's restart; a new connection"
read -r p1 cc1 b1 <<< "$(upload_sock)"
sleep 3
read -r p2 cc2 b2 <<< "$(upload_sock)"
fact upload_socket_after "port ${p2:-?} cc ${cc2:-?} bytes_acked ${b1:-?} then ${b2:-?} 3 s later"
check upload-survives-restart "upload socket before: port $UPORT; after: port ${p1:-none} ${b1:-} -> ${p2:-none} ${b2:-} bytes acked; iperf3 $(kill -0 $UPID 2>/dev/null && echo running || echo gone)" \
    eval '[ "${p1:-}" = "$UPORT" ] && [ "${p2:-}" = "$UPORT" ] && [ "${b2:-0}" -gt "${b1:-0}" ] && [ "${b1:-0}" -gt "$UB0" ] && kill -0 $UPID'
fact upload_cc_after "${cc2:-?}"
timeout 40 iperf3 -c $AP_IP -p 5202 -t 3 -J > "$OUT/iperf-new.json" 2>&1
ncc=$(iperf_field "$OUT/iperf-new.json" "d['end'].get('sender_tcp_congestion')")
check new-connection-ackloss-cubic "a new connection's sender_tcp_congestion: ${ncc:-?}" test "$ncc" = ackloss_cubic
check effective-sysctls "$(sysctls | tr '\n' ' ')" eval 'has_ackloss_ccs && [ "$(dflt)|$(allowed)" = "$BASE_DEFAULT|$BASE_ALLOWED" ]'

# ---------------------------------------------------------- 6. scan guard ----
say "scan guard: suppressed again, the hold, exact restore"
check bgscan-suppressed-again "bgscan '$(bgscan_get)' with the upload still running" wait_suppressed 30 "${t_up%.*}" again
if hold_listed; then HOLD_AFTER=kept; else HOLD_AFTER=absent; fi
pkill -f '^sleep 1200$'
wait $HPID; hrc=$?
fact hold_holder_exit "$hrc"
fact hold_holder_stderr "$(tr '\n' ' ' < "$OUT/hold.err" | head -c 400)"
if grep -q 'lost\|could not release' "$OUT/hold.err"; then HOLD_REPORTED=yes; else HOLD_REPORTED=no; fi
fact hold_after_upgrade "$HOLD_AFTER (loss reported by the holder: $HOLD_REPORTED)"
check hold-kept-or-reported "after the upgrade the hold was $HOLD_AFTER and its holder said: $(tr '\n' ' ' < "$OUT/hold.err")" \
    eval '[ $HOLD_AFTER = kept ] || [ $HOLD_REPORTED = yes ]'
kill $UPID 2>/dev/null; wait $UPID 2>/dev/null
tail -4 "$OUT/upload.txt"
# idle-holdoff=12 (the drop-in) and emulation slack
check bgscan-restored-exactly "30 s after the upload: bgscan '$(bgscan_get)' (want '$FORCED')" wait_until 30 bgscan_is "$FORCED"
check state-file-clean "$(tr '\n' ' ' < /run/wlanfair-scand/bgscan.state 2>/dev/null)" wait_until 10 state_clean

# ------------------------------------------------------------ 7. reporter ----
say "reporter: the same key, a new run"
check reports-accepted-after-upgrade "no authenticated report after the upgrade; $(tail -2 "$OUT/listen.err" | tr '\n' ' ')" \
    wait_until 20 report_after "$t_done"
check no-report-rejected "$(rejects) rejected: $(grep '"event":"reject"' "$OUT/listen.jsonl" | head -2 | tr '\n' ' ')" test "$(rejects)" = 0

# ------------------------------------------------------------------ 8. AP ----
say "AP controller after the upgrade"
check apd-in-control-after "$(st "d['mode'], d['mode_reason']")" wait_until 30 in_control
sleep 1; kill $HOOKS_PID 2>/dev/null
NEW_I=$(rwnd_ids ingress) NEW_E=$(rwnd_ids egress)
fact apd_programs_after "ingress ${NEW_I:-none} egress ${NEW_E:-none}"
# The samples: the old programs, then none or the new ones, never two.
hooks_verdict() {
    awk -v oi="$OLD_I" -v oe="$OLD_E" -v ni="$NEW_I" -v ne="$NEW_E" '
        { i = substr($2, 3); e = substr($3, 3) }
        i ~ /,/ || e ~ /,/ { two++ }
        i == oi || e == oe { lastold = NR }
        (i == ni || e == ne) && !firstnew { firstnew = NR }
        i == "" && e == "" { none++ }
        END { printf "%s two=%d none=%d lastold=%d firstnew=%d samples=%d\n",
                  (two == 0 && lastold > 0 && firstnew > lastold) ? "ok" : "bad", two, none, lastold, firstnew, NR }' "$OUT/ap-hooks.txt"
}
v=$(hooks_verdict)
fact apd_hooks_during_upgrade "$v"
check apd-new-programs "before: ingress $OLD_I egress $OLD_E; after: ingress '$NEW_I' egress '$NEW_E'" \
    eval '[[ $NEW_I =~ ^[0-9]+$ ]] && [[ $NEW_E =~ ^[0-9]+$ ]] && [ "$NEW_I" != "$OLD_I" ] && [ "$NEW_E" != "$OLD_E" ]'
check apd-lifted-then-reapplied "$v (the hooks every second: ap-hooks.txt)" test "${v%% *}" = ok
bad=$(journalctl -b --no-pager -o cat -u $AUNIT --since "@${t_up%.*}" | grep -i 'capset\|control process exited\|failed' | head -3)
check apd-restart-clean "$(tr '\n' ' ' <<< "$bad")" test -z "$bad"

# ------------------------------------------------------- 9. nothing stale ----
say "nothing older than the upgrade under /run, no old struct_ops map"
# (-H: a DynamicUser unit's runtime directory is a symlink into /run/private)
RUNDIRS="/run/wlanfair /run/wlanfair-scand /run/wlanfair-reportd /run/wlanfair-apd"
old=$(find -H $RUNDIRS -xdev ! -type d ! -newer $MARK 2>/dev/null | tr '\n' ' ')
fact run_files "$(find -H $RUNDIRS -xdev ! -type d 2>/dev/null | tr '\n' ' ')"
check no-stale-run "older than the upgrade: $old" test -z "$old"
so=$(timeout 20 bpftool struct_ops list 2>&1 | tr '\n' ' ')
fact struct_ops_after "$so"
n_so() { timeout 20 bpftool struct_ops list 2>/dev/null | grep -cw "$1"; }
check no-stale-struct-ops "bpftool struct_ops list: $so" eval '[ "$(n_so ackloss_cubic) $(n_so ackloss_reno)" = "1 1" ]'
if kernel_below_6_4; then
    check pins-renewed "$(pins); older than the upgrade: $(find $PINDIR ! -newer $MARK 2>/dev/null | grep -v "^$PINDIR\$" | tr '\n' ' ')" \
        eval '! pins_empty && [ -z "$(find $PINDIR ! -newer $MARK 2>/dev/null | grep -v "^$PINDIR\$")" ]'
else
    check no-pins-on-link-path "$(pins)" pins_empty
fi

# ------------------------------------------------------------ 10. purge ----
# The profile setting is the user's: it is not the package's to remove,
# but the scenarios after this one want the profile as it was.
run 20 wlanfairctl scan unset lab roam-floor
# One purge of both with the services running (what 'apt-get remove' does,
# the stop and the restore of every setting, is its first half: under TCG
# a separate remove cost 50 s of dpkg and maintainer scripts).
say "apt-get purge -y wlanfair-ap wlanfair (services running)"
run 300 env DEBIAN_FRONTEND=noninteractive apt-get purge -y -q -o Dpkg::Use-Pty=0 wlanfair-ap wlanfair
rc=$?
check purge "apt-get purge exit status $rc" test $rc = 0
state_dump
unit_files() { ls -d {/lib,/usr/lib,/etc,/run}/systemd/system/wlanfair-*.service 2>/dev/null; }
check purge-stops-daemons "$(pgrep -a wlanfair-)" eval '! pgrep -x "wlanfair-(tcpd|scand|apd)" >/dev/null && ! systemctl is-active -q $RUNIT'
check purge-packages-forgotten "$(dpkg-query -W -f='${Package} ${db:Status-Abbrev}\n' wlanfair wlanfair-ap 2>&1 | tr '\n' ' ')" \
    eval '! dpkg-query -W wlanfair >/dev/null 2>&1 && ! dpkg-query -W wlanfair-ap >/dev/null 2>&1'
check purge-no-unit-file "$(unit_files | tr '\n' ' ')" test -z "$(unit_files)"
check purge-no-dbus-policy "$(ls /usr/share/dbus-1/system.d/ | grep -i wlanfair)" test ! -e /usr/share/dbus-1/system.d/org.wlanfair.ScanGuard1.conf
check purge-no-enablement "$(ls -l /etc/systemd/system/*.wants/ 2>/dev/null | grep wlanfair)" \
    eval '! ls /etc/systemd/system/*.wants/ 2>/dev/null | grep -q wlanfair'
# What is left in /etc/wlanfair is the administrator's own: the drop-in and
# the two keys (dpkg removes conffiles and their .dpkg-dist, nothing else).
left=$(cd $E 2>/dev/null && find . ! -type d | sort | tr '\n' ' ')
check purge-leaves-only-admin-files "left in $E: $left" test "$left" = "./apd.key ./reportd.key ./scan.conf.d/50-lab.conf "
check purge-bgscan-as-before "bgscan '$(bgscan_get)', want '$FORCED'" bgscan_is "$FORCED"
check purge-no-ackloss-cc "$(sysctls | tr '\n' ' ')" no_ackloss_cc
check purge-no-pins "$(pins)" pins_empty
check purge-sysctls-as-before "$(sysctls | tr '\n' ' ')" sysctls_at_baseline
runs=$(ls -d /run/wlanfair /run/wlanfair-scand /run/wlanfair-reportd /run/wlanfair-apd 2>/dev/null | tr '\n' ' ')
check purge-no-run-dirs "left: ${runs:-none}" test -z "$runs"
check purge-no-apd-programs "ingress '$(rwnd_ids ingress)' egress '$(rwnd_ids egress)'; $BR qdiscs: $(tc qdisc show dev $BR | tr '\n' ' ')" \
    eval '[ -z "$(rwnd_ids ingress)" ] && [ -z "$(rwnd_ids egress)" ] && ! tc qdisc show dev $BR | grep -q clsact'
# The administrator's files go too: the next scenario installs afresh.
rm -rf $E
state_dump
