#!/bin/sh
# mmdebstrap --essential-hook: runs after the Essential packages are
# unpacked and BEFORE the kernel is installed, so the initrd built while
# linux-image-amd64 is installed already follows this configuration.
# $1 = the root directory being built.
set -e
R="$1"
mkdir -p "$R/etc/initramfs-tools/conf.d"
# Only what finds and mounts the root disk (virtio-blk + ext4) and the 9p
# share.  MODULES=list keeps the initrd at ~7 MB instead of ~36 MB, which
# shortens every boot under software emulation.
printf '%s\n' virtio_pci virtio_blk virtio_console ext4 9p 9pnet 9pnet_virtio \
    > "$R/etc/initramfs-tools/modules"
printf 'MODULES=list\nCOMPRESS=gzip\n' > "$R/etc/initramfs-tools/conf.d/wlanfair-lab"
