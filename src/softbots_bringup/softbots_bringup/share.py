"""Where the installed launch files, configs and URDFs are: softbots_bringup's share, found through
the ament index (so from install/, the Docker image or /opt, whatever the working directory)."""

from __future__ import annotations

from pathlib import Path

from ament_index_python.packages import PackageNotFoundError, get_package_share_directory

PACKAGE = 'softbots_bringup'


class NotInstalled(RuntimeError):
    """softbots_bringup (or a file in its share) is not installed where the sourced workspace
    says."""


def share_dir() -> Path:
    """The installed share directory of softbots_bringup. Raises NotInstalled when the ament index
    does not have it."""
    try:
        return Path(get_package_share_directory(PACKAGE))
    except PackageNotFoundError:
        raise NotInstalled(
            f'{PACKAGE} is not installed: run `make build` (or colcon build) and '
            f'`source install/setup.bash`'
        ) from None


def installed(relative: str) -> Path:
    """An installed file of the share, e.g. installed('config/terresoro_iii.yaml'); NotInstalled if
    missing."""
    path = share_dir() / relative
    if not path.exists():
        raise NotInstalled(
            f'{relative} is not in {share_dir()}: rebuild the workspace (make build)'
        )
    return path
