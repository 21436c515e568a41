"""The README and docs/ hold together: every relative markdown link names a file of this repository
that exists, and every #anchor a heading of the page it points at; nothing points outside the
repository."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / 'README.md', *sorted((ROOT / 'docs').glob('*.md'))]

FENCE = re.compile(r'^```.*?^```', re.MULTILINE | re.DOTALL)
CODE_SPAN = re.compile(r'`[^`\n]*`')
LINK = re.compile(r'\[[^\]]*\]\(([^)\s]+)\)')
HEADING = re.compile(r'^#{1,6}\s+(.*?)\s*#*\s*$', re.MULTILINE)


def prose(text: str) -> str:
    """The text without code blocks and code spans (a `[x](y)` in code is not a link)."""
    return CODE_SPAN.sub('', FENCE.sub('', text))


def anchor(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r'[^\w\- ]', '', heading.strip().lower()).replace(' ', '-')


def anchors(text: str) -> set[str]:
    """The anchors of a page's headings (repeats get GitHub's -1, -2 suffixes)."""
    seen: dict[str, int] = {}
    result = set()
    for heading in HEADING.findall(FENCE.sub('', text)):
        base = anchor(heading)
        result.add(f'{base}-{seen[base]}' if base in seen else base)
        seen[base] = seen.get(base, 0) + 1
    return result


def broken_links(page: Path, root: Path) -> list[str]:
    """One message per relative link of ``page`` that leaves ``root``, names no existing file, or
    names an anchor that the page it points at does not have."""
    problems = []
    for target in LINK.findall(prose(page.read_text())):
        # https:, mailto: ...: not a file of ours
        if re.match(r'[a-z][a-z0-9+.-]*:', target):
            continue
        path_part, _, fragment = target.partition('#')
        linked = (page.parent / path_part).resolve() if path_part else page
        where = f'{page.relative_to(root)}: link ({target})'
        if root.resolve() not in linked.parents and linked != root.resolve():
            problems.append(f'{where} points outside the repository')
        elif not linked.exists():
            problems.append(f'{where} names no file')
        elif fragment and linked.suffix == '.md' and fragment not in anchors(linked.read_text()):
            problems.append(f'{where} names no heading of {linked.relative_to(root.resolve())}')
    return problems


def test_the_readme_leads_to_every_page_of_docs():
    readme = prose((ROOT / 'README.md').read_text())
    assert [p.name for p in PAGES[1:] if f'(docs/{p.name})' not in readme] == []
    assert len(PAGES) > 5


def test_every_relative_link_of_the_readme_and_docs_resolves():
    assert [problem for page in PAGES for problem in broken_links(page, ROOT)] == []


def paths_outside(page: Path, root: Path) -> list[str]:
    """The ``../`` paths anywhere in ``page`` (links, code, prose) that lead out of ``root``: the
    README once sent readers to a design note in a folder beside the repository, which a clone does
    not have."""
    return [
        path
        for path in re.findall(r'(?:\.\./)+[\w.-]+', page.read_text())
        if root.resolve() not in (page.parent / path).resolve().parents
    ]


def test_nothing_points_into_a_folder_outside_the_repository():
    assert [(page.name, path) for page in PAGES for path in paths_outside(page, ROOT)] == []


def test_a_path_out_of_the_repository_is_found(tmp_path):
    (tmp_path / 'docs').mkdir()
    page = tmp_path / 'docs' / 'a.md'
    page.write_text(
        '[back](../README.md), see `../../outside/NOTES.md` and ../../outside/NOTES.md\n'
    )
    assert paths_outside(page, tmp_path) == ['../../outside', '../../outside']


def test_a_broken_link_or_anchor_is_named(tmp_path):
    (tmp_path / 'docs').mkdir()
    (tmp_path / 'docs' / 'a.md').write_text('# A page\n\n## Firmware (`<robot>/firmware/`)\n')
    (tmp_path / 'README.md').write_text(
        '[ok](docs/a.md) [ok](docs/a.md#firmware-robotfirmware) [gone](docs/b.md) '
        '[bad](docs/a.md#nowhere)\n'
        '[out](../outside/NOTES.md) [web](https://example.org) '
        '`[code](docs/c.md)`\n```\n[block](docs/d.md)\n```\n'
    )
    assert broken_links(tmp_path / 'README.md', tmp_path) == [
        'README.md: link (docs/b.md) names no file',
        'README.md: link (docs/a.md#nowhere) names no heading of docs/a.md',
        'README.md: link (../outside/NOTES.md) points outside the repository',
    ]


def test_anchors_follow_githubs_rule():
    assert anchors(
        '## On a robot with ROS 2 Jazzy from apt (Ubuntu 24.04)\n## Speed: compiled RK4\n## '
        'Notes\n'
        '## Notes\n'
    ) == {
        'on-a-robot-with-ros-2-jazzy-from-apt-ubuntu-2404',
        'speed-compiled-rk4',
        'notes',
        'notes-1',
    }
