# Web-like downloads: heavy-tailed sizes (Pareto, shape 1.2: most objects
# a few kB, a few of megabytes) and think times between them.
[profile]
name = web
trials = 100000             # bounded by stop-after
direction = download
size = pareto 1.2 4k 5M
idle = exponential 500ms
stop-after = 60s
seed = 16
