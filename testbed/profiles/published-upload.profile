# Hashimoto et al.'s measurement: 100 consecutive 1 MB transfers per
# client, no pause between them (uploads; see published-download).
[profile]
name = published-upload
trials = 100
direction = upload
size = fixed 1M
idle = fixed 0
