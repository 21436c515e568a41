"""Recorded experiments: rosbag2 reading and writing, the recorder, replay and the per-robot
analyses behind ``soro-analyze``."""
