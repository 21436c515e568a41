"""The tf tree a launch builds, from what the stack declares (no tf2, no rclpy): the joints of the
URDF that robot_state_publisher publishes, and each node's ``FrameUse`` (its package's
``parameters.FRAMES``, keyed by executable) evaluated on the parameters the launch gives it.
``check`` says what rviz or tf would refuse: a frame with two parents, a forest instead of one
tree, and a frame that a node stamps (or rviz fixes) that is not in it.
"""

from __future__ import annotations

import importlib
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from softbots_bringup.description import ResolvedNode, urdf_text


@dataclass
class Tree:
    """A tf tree being built: each child's parent (the first given), the nodes broadcasting each
    child's parent, the nodes stamping each frame, and the problems met."""

    parent: dict[str, str] = field(default_factory=dict)  # child -> parent
    # child -> nodes broadcasting its parent
    broadcasters: dict[str, list[str]] = field(default_factory=dict)
    stamps: dict[str, list[str]] = field(default_factory=dict)  # frame -> nodes stamping it
    problems: list[str] = field(default_factory=list)

    def add(self, node: str, parent: str, child: str) -> None:
        """``node`` broadcasts ``parent`` -> ``child``; a second, different parent is a problem and
        the first stays."""
        self.broadcasters.setdefault(child, []).append(node)
        if child in self.parent and self.parent[child] != parent:
            self.problems.append(
                f'{child} has two parents: {self.parent[child]} and {parent} ({node})'
            )
        self.parent.setdefault(child, parent)

    def frames(self) -> set[str]:
        """Every frame of the tree, parents and children."""
        return set(self.parent) | set(self.parent.values())

    def roots(self) -> list[str]:
        """The frames that are a parent but nobody's child, sorted."""
        return sorted(set(self.parent.values()) - set(self.parent))

    def chain(self, frame: str) -> list[str]:
        """``frame`` and its ancestors up to the root (stops at a cycle)."""
        out = [frame]
        while out[-1] in self.parent and self.parent[out[-1]] not in out:
            out.append(self.parent[out[-1]])
        return out


def urdf_joints(urdf: str) -> list[tuple[str, str]]:
    """(parent link, child link) of every joint: what robot_state_publisher broadcasts."""
    root = ET.fromstring(urdf)
    return [
        (j.find('parent').get('link'), j.find('child').get('link')) for j in root.iter('joint')
    ]


def node_parameters(node: ResolvedNode, specs) -> dict[str, object]:
    """The values of ``specs`` as the node gets them: defaults, its parameter files (``/**`` and
    its own name, in any of the forms ROS accepts), then the launch's overrides."""
    values = {spec.name: spec.default for spec in specs}
    keys = ('/**', node.name, f'/{node.name}', f'/**/{node.name}')
    for path in node.params:
        document = yaml.safe_load(path.read_text()) or {}
        for key in keys:
            values.update((document.get(key) or {}).get('ros__parameters') or {})
    values.update(node.overrides)
    return {spec.name: values[spec.name] for spec in specs}


def fixed_frame(rviz_file: str) -> str | None:
    """The Fixed Frame of an rviz2 configuration."""
    document = yaml.safe_load(Path(rviz_file).read_text())
    return ((document.get('Visualization Manager') or {}).get('Global Options') or {}).get(
        'Fixed Frame'
    )


def build(nodes: list[ResolvedNode]) -> Tree:
    """The tree of a resolved launch, with every stamped frame noted."""
    tree = Tree()
    for node in nodes:
        if node.robot_description:
            for parent, child in urdf_joints(urdf_text(node)):
                tree.add(node.name, parent, child)
        elif node.executable == 'rviz2':
            rviz = [a for a in node.arguments if a.endswith('.rviz')]
            for frame in filter(None, map(fixed_frame, rviz)):
                tree.stamps.setdefault(frame, []).append(f'{node.name} (Fixed Frame)')
        else:
            declared = getattr(importlib.import_module(f'{node.package}.parameters'), 'FRAMES', {})
            if node.executable not in declared:
                tree.problems.append(
                    f'{node.name}: {node.package}.parameters.FRAMES does not declare '
                    f'{node.executable}'
                )
                continue
            specs, use_of = declared[node.executable]
            use = use_of(node_parameters(node, specs))
            for parent, child in use.broadcasts:
                tree.add(node.name, parent, child)
            for frame in use.stamps:
                tree.stamps.setdefault(frame, []).append(node.name)
    return tree


def check(tree: Tree) -> list[str]:
    """Everything wrong with the tree: two parents, a cycle, more than one root, a stamped frame
    outside it."""
    problems = list(tree.problems)
    for frame in sorted(tree.frames()):
        if tree.chain(frame)[-1] in tree.parent:
            problems.append(f'{frame} is in a cycle: {" -> ".join(tree.chain(frame))}')
    if len(tree.roots()) > 1:
        problems.append(f'the tree has {len(tree.roots())} roots: {", ".join(tree.roots())}')
    frames = tree.frames()
    for frame, users in sorted(tree.stamps.items()):
        if frame not in frames:
            seen = (
                'nothing is broadcast' if not frames else 'frames are ' + ', '.join(sorted(frames))
            )
            problems.append(f'{frame} (stamped by {", ".join(users)}) is not in tf: {seen}')
    return problems


def summary(tree: Tree) -> list[str]:
    """One line per stamped frame: its chain to the root, and who stamps it."""
    lines = [
        f'tree: {len(tree.frames())} frames, root '
        f'{", ".join(tree.roots()) or "(none: nothing is broadcast)"}'
    ]
    for frame, users in sorted(tree.stamps.items()):
        chain = tree.chain(frame)
        shown = chain if len(chain) <= 6 else chain[:2] + [f'({len(chain) - 5} more)'] + chain[-3:]
        lines.append(f'{" <- ".join(shown)}   [{", ".join(users)}]')
    return lines


def main(argv: list[str] | None = None) -> int:
    """``python -m softbots_bringup.frame_tree ROBOT.launch.py [name:=value ...]``: the frame check
    of one launch (every argument combination when none is given), its stamped frames' chains and
    its problems."""
    import sys

    from softbots_bringup.description import LaunchArgumentError, every_combination, load, resolve
    from softbots_bringup.share import NotInstalled, installed, share_dir

    argv = sys.argv[1:] if argv is None else argv
    if not argv or any(':=' not in a for a in argv[1:]):
        print(
            'usage: python -m softbots_bringup.frame_tree ROBOT.launch.py [name:=value ...]',
            file=sys.stderr,
        )
        return 2
    try:
        robot = load(installed(f'launch/{argv[0]}'))
        given = (
            [dict(a.split(':=', 1) for a in argv[1:])] if argv[1:] else every_combination(robot)
        )
        trees = [(args, build(resolve(robot, args, share_dir()))) for args in given]
    except (NotInstalled, LaunchArgumentError) as error:
        print(f'frame_tree: {error}', file=sys.stderr)
        return 2
    failed = 0
    for args, tree in trees:
        problems = check(tree)
        failed += bool(problems)
        print(
            f'{argv[0]} {" ".join(f"{k}:={v}" for k, v in args.items())}: '
            f'{"ok" if not problems else f"{len(problems)} problem(s)"}'
        )
        for line in summary(tree) + [f'  PROBLEM {p}' for p in problems]:
            print(f'  {line}')
    return 1 if failed else 0


if __name__ == '__main__':
    raise SystemExit(main())
