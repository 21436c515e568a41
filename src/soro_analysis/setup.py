from setuptools import find_packages, setup

package_name = 'soro_analysis'

setup(
    name=package_name,
    version='0.1.0',
    packages=find_packages(exclude=['test']),
    data_files=[
        ('share/ament_index/resource_index/packages', ['resource/' + package_name]),
        ('share/' + package_name, ['package.xml']),
    ],
    install_requires=['setuptools'],
    zip_safe=True,
    maintainer='softbots developers',
    maintainer_email='softbots@example.org',
    description='soro_analysis: rosbag2 files written and read (any rosbag2 bag), the recorder, '
    'per-robot analyses, '
    'soro-analyze and soro-replay.',
    license='Apache-2.0',
    entry_points={
        'console_scripts': [
            'soro-analyze = soro_analysis.cli:main',
            'soro-replay = soro_analysis.replay_node:main',
            'recorder = soro_analysis.recorder_node:main',
        ]
    },
)
