from setuptools import find_packages, setup

package_name = 'salamander_nav'

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
    description='Navigation of the origami salamander (Y. Sun, thesis ch. 3): cable kinematics, '
    'lattice A* and CHOMP '
    'planning, line-of-sight tracking with PD steering, and the ESP32 bridge.',
    license='Apache-2.0',
    entry_points={
        'soro_analysis.robots': ['salamander = salamander_nav.bag_analysis:ANALYSIS'],
        'console_scripts': [
            'salamander-plan = salamander_nav.cli:main',
            'salamander-demo = salamander_nav.demo:main',
            'salamander_controller = salamander_nav.controller_node:main',
            'salamander_planner = salamander_nav.planner_node:main',
            'salamander_sim = salamander_nav.sim_node:main',
        ],
    },
)
