from setuptools import find_packages, setup

package_name = 'tensegrity_sim'

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
    description='Tensegrity simulator of Savin, Vorochaeva, Kurenkov (2020): rigid rods, elastic '
    'cables, psi sweeps.',
    license='Apache-2.0',
    entry_points={
        'soro_analysis.robots': ['tensegrity = tensegrity_sim.bag_analysis:ANALYSIS'],
        'console_scripts': [
            'tensegrity-sweep = tensegrity_sim.cli:main',
            'tensegrity-demo = tensegrity_sim.demo:main',
            'tensegrity_live = tensegrity_sim.live_node:main',
        ],
    },
)
