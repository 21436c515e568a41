"""pytest plugin: tests marked ``ros`` run only with DDS confined to this machine.

`make test` runs pytest through tools/netns_run.sh, which sets what is checked here; a bare `pytest` outside it
stops with one line saying how to run it instead of multicasting discovery onto the network.
"""
import os

import pytest


def pytest_collection_modifyitems(config, items):
    """Exit pytest (code 2) if a test marked ``ros`` was collected and DDS is not kept local.

    Local means ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST and a ROS_DOMAIN_ID set, as
    tools/netns_run.sh does."""
    if not any(item.get_closest_marker('ros') for item in items):
        return
    if os.environ.get('ROS_AUTOMATIC_DISCOVERY_RANGE') != 'LOCALHOST' or 'ROS_DOMAIN_ID' not in os.environ:
        pytest.exit('tests marked "ros" need DDS kept on this machine: run them through `make test` or '
                    '`tools/netns_run.sh python -m pytest ...`', returncode=2)
