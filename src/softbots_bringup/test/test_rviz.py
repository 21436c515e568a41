"""The rviz views as installed: every display of a motion-capture or tracked pose subscribes best effort, the one
reliability that connects to the best-effort publishers of the mocap drivers packaged for Jazzy (vrpn_mocap,
mocap4r2) as well as to reliable ones."""
import yaml

from softbots_bringup.share import share_dir

QOS_KEYS = {'Depth', 'Durability Policy', 'History Policy', 'Reliability Policy', 'Value'}   # rviz2 Jazzy's


def displays(entries):
    for entry in entries:
        yield entry
        yield from displays(entry.get('Displays', []))      # inside a group


def pose_topics(view):
    """(display name, its Topic block) of every display of a motion-capture or tracked pose."""
    return [(d['Name'], d['Topic']) for d in displays(view['Visualization Manager']['Displays'])
            if isinstance(d.get('Topic'), dict) and ('/mocap/' in d['Topic']['Value']
                                                    or d['Topic']['Value'].endswith('tracked_pose'))]


def test_motion_capture_displays_subscribe_best_effort():
    views = {path.name: yaml.safe_load(path.read_text()) for path in sorted((share_dir() / 'config').glob('*.rviz'))}
    found = {name: pose_topics(view) for name, view in views.items()}
    assert {name for name, topics in found.items() if topics} >= {'salamander.rviz', 'soft_snake.rviz'}
    for name, topics in found.items():
        for display, topic in topics:
            assert set(topic) == QOS_KEYS, (name, display)
            assert topic['Reliability Policy'] == 'Best Effort', (name, display, topic['Value'])
