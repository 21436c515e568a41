from setuptools import find_packages, setup

package_name = 'soft_snake'

setup(
    name=package_name,
    version='0.1.0',
    packages=find_packages(exclude=['test']),
    package_data={package_name: ['data/*.csv']},
    data_files=[
        ('share/ament_index/resource_index/packages', ['resource/' + package_name]),
        ('share/' + package_name, ['package.xml']),
    ],
    install_requires=['setuptools'],
    zip_safe=False,
    maintainer='softbots developers',
    maintainer_email='softbots@example.org',
    description='The pneumatic modular soft snake (Y. Sun, thesis ch. 2): valve gaits, step '
    'climbing, chamber '
    "pneumatics and the thesis's measured tables.",
    license='Apache-2.0',
    entry_points={
        'soro_analysis.robots': ['soft_snake = soft_snake.bag_analysis:ANALYSIS'],
        'console_scripts': [
            'soft-snake-gait = soft_snake.cli:main',
            'soft-snake-tables = soft_snake.cli:tables_main',
            'soft-snake-fit = soft_snake.cli:fit_main',
            'soft-snake-demo = soft_snake.demo:main',
            'soft_snake_driver = soft_snake.driver_node:main',
            'soft_snake_sim = soft_snake.sim_node:main',
        ],
    },
)
