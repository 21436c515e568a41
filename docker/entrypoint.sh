#!/usr/bin/env bash
# Source ROS, the pinned extras and the built workspace, then run the given command.
set -e
source /opt/softbots/.venv/env.sh
source /opt/softbots/install/setup.bash
exec "$@"
