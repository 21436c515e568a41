"""The rviz views as installed: every display of a motion-capture or tracked pose subscribes best
effort, the one reliability that connects to the best-effort publishers of the mocap drivers
packaged for Jazzy (vrpn_mocap, mocap4r2) as well as to reliable ones; and every topic is relative,
so an rviz2 that a launch starts under namespace:=robot1 shows robot1's topics."""

import yaml

from softbots_bringup.share import share_dir

# rviz2 Jazzy's
QOS_KEYS = {'Depth', 'Durability Policy', 'History Policy', 'Reliability Policy', 'Value'}


def displays(entries):
    for entry in entries:
        yield entry
        yield from displays(entry.get('Displays', []))  # inside a group


def pose_topics(view):
    """(display name, its Topic block) of every display of a motion-capture or tracked pose."""
    return [
        (d['Name'], d['Topic'])
        for d in displays(view['Visualization Manager']['Displays'])
        if isinstance(d.get('Topic'), dict)
        and (
            d['Topic']['Value'].startswith('mocap/')
            or d['Topic']['Value'].endswith('tracked_pose')
        )
    ]


def topic_names(entry):
    """Every topic name anywhere in a view (displays, tools): the Value of each Topic block."""
    if isinstance(entry, dict):
        for key, value in entry.items():
            if key.endswith('Topic') and isinstance(value, dict) and 'Value' in value:
                yield value['Value']
            yield from topic_names(value)
    elif isinstance(entry, list):
        for item in entry:
            yield from topic_names(item)


def test_motion_capture_displays_subscribe_best_effort():
    views = {
        path.name: yaml.safe_load(path.read_text())
        for path in sorted((share_dir() / 'config').glob('*.rviz'))
    }
    found = {name: pose_topics(view) for name, view in views.items()}
    assert {name for name, topics in found.items() if topics} >= {
        'salamander.rviz',
        'soft_snake.rviz',
    }
    for name, topics in found.items():
        for display, topic in topics:
            assert set(topic) == QOS_KEYS, (name, display)
            assert topic['Reliability Policy'] == 'Best Effort', (name, display, topic['Value'])


def test_every_topic_of_every_view_is_relative_to_the_namespace():
    views = {
        path.name: yaml.safe_load(path.read_text())
        for path in sorted((share_dir() / 'config').glob('*.rviz'))
    }
    absolute = {
        name: [t for t in topic_names(view) if t.startswith('/')] for name, view in views.items()
    }
    assert len(views) == 5 and all(list(topic_names(view)) for view in views.values())
    assert absolute == {name: [] for name in views}
