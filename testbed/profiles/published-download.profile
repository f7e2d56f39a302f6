# Hashimoto et al.'s measurement: 100 consecutive 1 MB transfers per
# client, no pause between them (downloads; see published-upload).
[profile]
name = published-download
trials = 100
direction = download
size = fixed 1M
idle = fixed 0
