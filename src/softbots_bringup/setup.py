"""softbots_bringup installs the workspace's top-level launch/, config/ and urdf/ (their single
source, by the product card's layout) into its share, so `ros2 launch softbots_bringup
<robot>.launch.py` works from install/."""

import os
from pathlib import Path

from setuptools import find_packages, setup

package_name = 'softbots_bringup'
ROOT = Path(__file__).resolve().parents[2]  # the workspace: src/softbots_bringup/../..


def top_level(folder: str, pattern: str) -> tuple[str, list[str]]:
    """(share/softbots_bringup/<folder>, files) for the top-level folder, the files relative to the
    working directory (setuptools refuses absolute paths)."""
    files = sorted(os.path.relpath(p) for p in (ROOT / folder).glob(pattern))
    if not files:
        raise SystemExit(
            f'softbots_bringup: no {pattern} in {ROOT / folder}: build from the softbots workspace'
        )
    return f'share/{package_name}/{folder}', files


setup(
    name=package_name,
    version='0.1.0',
    packages=find_packages(exclude=['test']),
    data_files=[
        ('share/ament_index/resource_index/packages', ['resource/' + package_name]),
        ('share/' + package_name, ['package.xml']),
        top_level('launch', '*.launch.py'),
        top_level('config', '*.*'),
        top_level('urdf', '*.*'),
    ],
    install_requires=['setuptools'],
    zip_safe=True,
    maintainer='softbots developers',
    maintainer_email='softbots@example.org',
    description='softbots_bringup: the launch files, configs and URDFs of every robot, and the '
    'process runner.',
    license='Apache-2.0',
    entry_points={'console_scripts': ['softbots-launch = softbots_bringup.cli:main']},
)
