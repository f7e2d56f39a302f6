# On/off traffic for the scan guard: 2 MB downloads with idle gaps drawn
# around its default hold-off (idle under 10 packets/s for 10 s): some
# gaps end before the guard lets scans back, some after.
[profile]
name = onoff
trials = 12
direction = download
size = fixed 2M
idle = uniform 4s 16s
seed = 3
