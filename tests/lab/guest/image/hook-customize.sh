#!/bin/sh
# mmdebstrap --customize-hook: runs after all packages are installed.
# $1 = the root directory being built; $2 = the directory of this file.
# Prepares the guest for unattended runs of the lab.
set -e
R="$1"
HERE="$2"

echo wlanfair-lab > "$R/etc/hostname"
printf '127.0.0.1 localhost\n127.0.1.1 wlanfair-lab\n' > "$R/etc/hosts"
# Root on the virtio disk; the host's run directory shared by virtio-9p.
cat > "$R/etc/fstab" <<EOT
/dev/vda  /          ext4  rw,noatime  0 1
hostshare /mnt/host  9p    trans=virtio,version=9p2000.L,msize=262144,nofail,x-systemd.device-timeout=10  0 0
EOT
mkdir -p "$R/mnt/host"
chroot "$R" passwd -d root >/dev/null     # console login for 'wlanfair-lab shell'

# The runner: starts /mnt/host/lab/runner.sh, then powers off.
cp "$HERE/lab-runner.service" "$R/etc/systemd/system/"
chroot "$R" systemctl enable lab-runner.service

# A getty on ttyS0 would vhangup() the console and cut the runner's output
# to it: only in 'wlanfair-lab shell' (kernel argument lab.shell).
mkdir -p "$R/etc/systemd/system/serial-getty@ttyS0.service.d"
printf '[Unit]\nConditionKernelCommandLine=lab.shell\n' \
    > "$R/etc/systemd/system/serial-getty@ttyS0.service.d/lab.conf"

# Units that only cost boot time here, or would start an AP of their own.
for u in apt-daily.timer apt-daily-upgrade.timer e2scrub_all.timer \
         e2scrub_reap.service fstrim.timer man-db.timer \
         systemd-timesyncd.service hostapd.service \
         ModemManager.service NetworkManager-wait-online.service; do
    chroot "$R" systemctl mask "$u" >/dev/null 2>&1 || true
done

# NetworkManager: keyfile profiles, the same MAC while scanning.
mkdir -p "$R/etc/NetworkManager/conf.d"
cat > "$R/etc/NetworkManager/conf.d/lab.conf" <<EOT
[main]
plugins=keyfile
[device]
wifi.scan-rand-mac-address=no
EOT
# The guest has no network: apt must never try to fetch Recommends.
printf 'APT::Install-Recommends "false";\n' > "$R/etc/apt/apt.conf.d/90wlanfair-lab"
# A fresh machine-id at every boot (the disk is a throw-away snapshot).
rm -f "$R/etc/machine-id"; touch "$R/etc/machine-id"
