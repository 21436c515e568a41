from setuptools import find_packages, setup

package_name = 'soro_geometry'

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
    description='soro_geometry: SE(2), quaternions, planar poses and their messages, tracked pose '
    'histories.',
    license='Apache-2.0',
)
