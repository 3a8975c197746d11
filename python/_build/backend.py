"""A PEP 517 build backend for this pure-Python package, in the source tree, needing nothing but the
standard library: `pip install ./python` then works offline and with build isolation (a setuptools
backend would have pip fetch setuptools from an index first). Builds a py3-none-any wheel of
neuron_gate_capture/*.py with the metadata from pyproject.toml, an sdist, and an editable wheel (.pth).
"""

import base64
import hashlib
import io
import os
import re
import tarfile
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = "neuron_gate_capture"


def _project():
    """name, version, description, requires-python and scripts from pyproject.toml (simple key = "value" lines)."""
    with open(os.path.join(ROOT, "pyproject.toml"), encoding="utf-8") as f:
        text = f.read()
    project = text.split("[project]", 1)[1].split("\n[", 1)[0]
    values = dict(re.findall(r'^([A-Za-z-]+)\s*=\s*"([^"]*)"', project, re.M))
    scripts_part = text.split("[project.scripts]", 1)[1].split("\n[", 1)[0] if "[project.scripts]" in text else ""
    scripts = re.findall(r'^([A-Za-z0-9_.-]+)\s*=\s*"([^"]*)"', scripts_part, re.M)
    return values, scripts


def _dist_name(values):
    return values["name"].replace("-", "_")


def _metadata(values):
    lines = ["Metadata-Version: 2.1", "Name: " + values["name"], "Version: " + values["version"],
             "Summary: " + values.get("description", ""), "License: MIT"]
    if "requires-python" in values:
        lines.append("Requires-Python: " + values["requires-python"])
    readme = os.path.join(ROOT, "README.md")
    if os.path.exists(readme):
        lines.append("Description-Content-Type: text/markdown")
        with open(readme, encoding="utf-8") as f:
            return "\n".join(lines) + "\n\n" + f.read()
    return "\n".join(lines) + "\n"


def _record_line(path, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode("ascii")
    return "%s,sha256=%s,%d" % (path, digest, len(data))


def _write_wheel(wheel_directory, files):
    """files: list of (path in the wheel, bytes); adds the dist-info and RECORD."""
    values, scripts = _project()
    dist_info = "%s-%s.dist-info" % (_dist_name(values), values["version"])
    files = list(files)
    files.append((dist_info + "/METADATA", _metadata(values).encode("utf-8")))
    files.append((dist_info + "/WHEEL", b"Wheel-Version: 1.0\nGenerator: neuron-gate _build/backend.py\n"
                                        b"Root-Is-Purelib: true\nTag: py3-none-any\n"))
    if scripts:
        entry = "[console_scripts]\n" + "".join("%s = %s\n" % pair for pair in scripts)
        files.append((dist_info + "/entry_points.txt", entry.encode("utf-8")))
    record = [_record_line(path, data) for path, data in files] + [dist_info + "/RECORD,,"]
    files.append((dist_info + "/RECORD", ("\n".join(record) + "\n").encode("utf-8")))
    name = "%s-%s-py3-none-any.whl" % (_dist_name(values), values["version"])
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w", zipfile.ZIP_DEFLATED) as wheel:
        for path, data in files:
            wheel.writestr(zipfile.ZipInfo(path, date_time=(2026, 1, 1, 0, 0, 0)), data)
    return name


def _sources():
    folder = os.path.join(ROOT, PACKAGE)
    for name in sorted(os.listdir(folder)):
        if name.endswith(".py"):
            with open(os.path.join(folder, name), "rb") as f:
                yield "%s/%s" % (PACKAGE, name), f.read()


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    return _write_wheel(wheel_directory, _sources())


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    values, _ = _project()
    return _write_wheel(wheel_directory, [("%s.pth" % _dist_name(values), (ROOT + "\n").encode("utf-8"))])


def build_sdist(sdist_directory, config_settings=None):
    values, _ = _project()
    base = "%s-%s" % (_dist_name(values), values["version"])
    name = base + ".tar.gz"
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz") as sdist:
        for relative in ["pyproject.toml", "README.md", "_build/backend.py"] + [p for p, _ in _sources()]:
            sdist.add(os.path.join(ROOT, relative), arcname="%s/%s" % (base, relative))
        info = _metadata(values).encode("utf-8")
        entry = tarfile.TarInfo(base + "/PKG-INFO")
        entry.size = len(info)
        sdist.addfile(entry, io.BytesIO(info))
    return name
