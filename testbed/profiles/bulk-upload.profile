# One upload that does not end by itself: a backup or a cloud sync beside
# the web clients, cut at stop-after.
[profile]
name = bulk-upload
trials = 1
direction = upload
size = fixed 100G
stop-after = 60s
