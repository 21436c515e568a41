"""Issue 27 item 4: rosbag2 writing, reading and recording live here, so soro_analysis needs
nothing of the hardware link: no soro_link in its package.xml, no import of it in its code or
tests."""

import ast
import xml.etree.ElementTree as ET
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1]


def imported_packages(path: Path) -> set[str]:
    """The top-level names ``path`` imports, inside functions too."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {alias.name.split('.')[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.split('.')[0])
    return names


def test_soro_analysis_neither_declares_nor_imports_the_hardware_link():
    declared = {
        element.text
        for element in ET.parse(PACKAGE / 'package.xml').getroot()
        if element.tag.endswith('depend')
    }
    assert 'soro_link' not in declared
    importers = [
        path.relative_to(PACKAGE)
        for path in sorted(PACKAGE.rglob('*.py'))
        if 'soro_link' in imported_packages(path)
    ]
    assert importers == []
