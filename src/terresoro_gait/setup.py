from setuptools import find_packages, setup

package_name = 'terresoro_gait'

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
    description='TerreSoRo pMFC: limb-state digraph, exploration, edge-weight learning, exact BILP gait synthesis.',
    license='Apache-2.0',
    entry_points={'console_scripts': [
        'terresoro-synthesize = terresoro_gait.cli:synthesize_main',
        'terresoro-sweep = terresoro_gait.cli:sweep_main',
        'terresoro-explore = terresoro_gait.cli:explore_main',
    ]},
)
