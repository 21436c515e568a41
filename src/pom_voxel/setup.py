from setuptools import find_packages, setup

package_name = 'pom_voxel'

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
    description='Planes of Motion kinematics of voxel-lattice robots (Tebyani et al.): forward, '
    'inverse and lateral '
    'kinematics, key-pose gaits.',
    license='Apache-2.0',
    entry_points={
        'soro_analysis.robots': ['pom = pom_voxel.bag_analysis:ANALYSIS'],
        'console_scripts': [
            'pom-gait = pom_voxel.cli:main',
            'pom-mocap = pom_voxel.cli:mocap_main',
            'pom-demo = pom_voxel.demo:main',
            'pom-fe-check = pom_voxel.cli:fe_check_main',
            'pom_controller = pom_voxel.controller_node:main',
            'pom_sim = pom_voxel.sim_node:main',
        ],
    },
)
