#!/usr/bin/env bash
# Run a command so that DDS traffic never leaves this machine:
#   - inside a fresh network namespace that has only loopback, when one can be made (root or user namespaces);
#   - always with ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST and a ROS_DOMAIN_ID of its own (random unless given).
# Where no namespace can be made, says so once and falls back to LOCALHOST discovery alone.
set -euo pipefail
[[ $# -gt 0 ]] || { echo "usage: $0 CMD [ARG...]" >&2; exit 2; }

export ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST
export ROS_DOMAIN_ID=${ROS_DOMAIN_ID:-$((RANDOM % 100 + 1))}

for unshare_args in "--net" "--user --map-root-user --net"; do
    # shellcheck disable=SC2086
    if unshare $unshare_args true 2>/dev/null; then
        # shellcheck disable=SC2086
        exec unshare $unshare_args bash -c 'ip link set lo up && export SOFTBOTS_NETNS=1 && exec "$@"' netns_run "$@"
    fi
done
echo "netns_run: no network namespace available; DDS limited by ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST only" >&2
exec "$@"
