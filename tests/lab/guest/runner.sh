#!/bin/bash
# guest/runner.sh - run INSIDE the VM by lab-runner.service (in the image).
# wlanfair-lab copies tests/lab/guest/ to the share at every boot, so this
# file and the scenarios change without rebuilding the image.
#
# 1. wait until boot has finished, so the package's postinst and the first
#    scenario do not race with boot jobs;
# 2. record the sysctls before anything is installed (/run/lab/baseline.env:
#    the scenarios compare against it);
# 3. run each scenario in $LAB_SCENARIOS as its own transient systemd unit
#    (lab-scenario-NAME.service): RuntimeMaxSec bounds it, systemd kills
#    whatever it left running, its journal is its own;
# 4. write the journals of the wlanfair units, the whole journal and dmesg
#    to the share, then out/status ("LAB-EXIT=0" all passed, 1 otherwise).
# lab-runner.service powers the VM off when this script ends.
set -u
. /mnt/host/lab/lib.sh
OUT=$LAB_SHARE/out
SCENARIO_TIMEOUT=${SCENARIO_TIMEOUT:-600}
mkdir -p "$OUT" "$LAB_RUN"
: > "$OUT/timings.txt"
timing() { echo "$1=$2" >> "$OUT/timings.txt"; }

echo "lab-runner: started; uptime $(cut -d' ' -f1 /proc/uptime) s"
timing guest_uptime_at_runner_s "$(cut -d' ' -f1 /proc/uptime)"
uname -r
systemctl --version | head -1

# ------------------------------------------------------------- 1. boot ----
say "waiting for boot to finish (systemctl is-system-running --wait, 180 s)"
state=$(timeout 180 systemctl is-system-running --wait 2>&1); echo "system state: ${state:-timeout}"
systemctl --failed --no-legend --plain | sed 's/^/failed unit: /'
timing guest_uptime_boot_finished_s "$(cut -d' ' -f1 /proc/uptime)"
systemd-analyze time 2>&1 | head -2

# --------------------------------------------------------- 2. baseline ----
{
    printf 'BASE_AVAIL=%q\n' "$(cat /proc/sys/net/ipv4/tcp_available_congestion_control)"
    printf 'BASE_DEFAULT=%q\n' "$(cat /proc/sys/net/ipv4/tcp_congestion_control)"
    printf 'BASE_ALLOWED=%q\n' "$(cat /proc/sys/net/ipv4/tcp_allowed_congestion_control)"
} > "$LAB_RUN/baseline.env"
cp "$LAB_RUN/baseline.env" "$OUT/baseline.txt"
cat "$OUT/baseline.txt"
if dpkg-query -W wlanfair >/dev/null 2>&1; then
    echo "lab-runner: wlanfair is already installed in the image; the scenarios expect a clean image"
fi

# -------------------------------------------------------- 3. scenarios ----
# run_scenario NAME: 0 if all its checks passed.
run_scenario() {
    local s=$1 u=lab-scenario-$1.service d=$OUT/$1 t0 rc result
    mkdir -p "$d"
    say "scenario $s (unit $u, at most $SCENARIO_TIMEOUT s)"
    t0=$(date +%s)
    # --pipe: the unit's output comes back here and is teed to the share
    # and the serial console.  Not --collect: Result= is read afterwards.
    systemd-run --quiet --wait --pipe --unit="$u" \
        -p RuntimeMaxSec="$SCENARIO_TIMEOUT" -p TimeoutStopSec=20 \
        --setenv=LAB_SCENARIO="$s" --setenv=SCENARIO_TIMEOUT="$SCENARIO_TIMEOUT" \
        /bin/bash "$LAB_SHARE/lab/scenario-$s.sh" < /dev/null 2>&1 | tee -a "$d/log.txt"
    rc=${PIPESTATUS[0]}
    result=$(systemctl show -p Result --value "$u")
    systemctl reset-failed "$u" 2>/dev/null
    timing "scenario_${s}_s" $(( $(date +%s) - t0 ))
    echo "lab-runner: scenario $s exited $rc (unit result: $result)"
    # A scenario that was killed, or wrote nothing, has failed whatever it
    # printed; record why, and rewrite its summary.
    if [ "$result" = timeout ]; then
        echo "FAIL scenario-timeout: the scenario ran over $SCENARIO_TIMEOUT s and was stopped" >> "$d/results.txt"
    elif ! [ -s "$d/results.txt" ]; then
        echo "FAIL scenario-no-results: exit status $rc, unit result $result, no check recorded" >> "$d/results.txt"
    elif [ "$rc" != 0 ] && ! grep -q '^FAIL' "$d/results.txt"; then
        echo "FAIL scenario-exit-status: $rc with no failed check (crashed?)" >> "$d/results.txt"
    fi
    write_summary "$d" "$s"
    ! grep -q '^FAIL' "$d/results.txt"
}

status=0
for s in ${LAB_SCENARIOS:-}; do
    run_scenario "$s" || status=1
done
[ -n "${LAB_SCENARIOS:-}" ] || { echo "lab-runner: no scenario given"; status=1; }

# ------------------------------------------------------------ 4. output ----
say "journals"
# The package's units (the host prints this one when something failed).
journalctl -b --no-pager -o short-precise -u 'wlanfair*' > "$OUT/journal-wlanfair.txt" 2>&1
journalctl -b --no-pager -o short-precise > "$OUT/journal.txt" 2>&1
dmesg > "$OUT/dmesg.txt" 2>&1
python3 - "$OUT" $LAB_SCENARIOS <<'PY'
import json, os, sys
out, names = sys.argv[1], sys.argv[2:]
res = {}
for n in names:
    try:
        res[n] = json.load(open(os.path.join(out, n, 'summary.json')))
    except (OSError, ValueError) as e:
        res[n] = {'scenario': n, 'ok': False, 'error': str(e)}
json.dump({'ok': all(r.get('ok') for r in res.values()), 'kernel': os.uname().release,
           'scenarios': res}, open(os.path.join(out, 'summary.json'), 'w'), indent=2)
PY
timing guest_uptime_end_s "$(cut -d' ' -f1 /proc/uptime)"
echo "LAB-EXIT=$status" > "$OUT/status"
sync
echo "lab-runner: done, LAB-EXIT=$status"
exit $status
