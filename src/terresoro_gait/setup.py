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
    description=(
        'TerreSoRo pMFC: limb-state digraph, exploration, edge-weight learning, exact BILP '
        'gait synthesis, gait executor and simulated robot.'
    ),
    license='Apache-2.0',
    entry_points={
        'soro_analysis.robots': ['terresoro = terresoro_gait.bag_analysis:ANALYSIS'],
        'console_scripts': [
            'terresoro-synthesize = terresoro_gait.cli:synthesize_main',
            'terresoro-sweep = terresoro_gait.cli:sweep_main',
            'terresoro-explore = terresoro_gait.cli:explore_main',
            'terresoro-demo = terresoro_gait.demo:main',
            'terresoro_executor = terresoro_gait.executor_node:main',
            'terresoro_learner = terresoro_gait.learner_node:main',
            'terresoro_synthesis = terresoro_gait.synthesis_node:main',
            'terresoro_sim = terresoro_gait.sim_node:main',
        ],
    },
)
