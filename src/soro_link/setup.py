from setuptools import find_packages, setup

package_name = 'soro_link'

setup(
    name=package_name,
    version='0.1.0',
    packages=find_packages(exclude=['test']),
    data_files=[
        ('share/ament_index/resource_index/packages', ['resource/' + package_name]),
        ('share/' + package_name, ['package.xml']),
        (
            'share/' + package_name + '/firmware',
            [
                'firmware/soro_link.h',
                'firmware/soro_link_messages.h',
                'firmware/soro_board.h',
                'firmware/soro_board.c',
                'firmware/board.mk',
            ],
        ),
    ],
    install_requires=['setuptools'],
    zip_safe=True,
    maintainer='softbots developers',
    maintainer_email='softbots@example.org',
    description=(
        'soro_link: the framed serial protocol, link supervision, simulated devices and the '
        'bridge base.'
    ),
    license='Apache-2.0',
    entry_points={
        'console_scripts': [
            'bridge_node = soro_link.outputs_bridge_node:main',
            'sim_device = soro_link.device_cli:main',
        ]
    },
)
