"""The systemd unit passes systemd-analyze verify; the install script passes shellcheck."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SYSTEMD = Path(__file__).resolve().parents[2] / "systemd"
UNIT = SYSTEMD / "gobblet-companion.service"
BOOTSTRAP = SYSTEMD.parent / "bootstrap"
VENV_PYTHON = "/opt/gobblet-companion/venv/bin/python"


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed")
def test_the_unit_verifies(tmp_path):
    # verify checks that ExecStart's program exists: point it at this python for the check.
    text = UNIT.read_text()
    assert VENV_PYTHON in text
    unit = tmp_path / UNIT.name
    unit.write_text(text.replace(VENV_PYTHON, sys.executable))
    result = subprocess.run(
        ["systemd-analyze", "verify", "--man=no", str(unit)], capture_output=True, text=True, timeout=60
    )
    problems = [line for line in result.stderr.splitlines() if UNIT.name in line]
    assert result.returncode == 0 and not problems, result.stderr


def test_the_unit_has_what_the_issue_asks_for():
    text = UNIT.read_text()
    for setting in (
        "Type=notify",
        "WatchdogSec=",
        "Restart=on-failure",
        "User=gobblet",
        VENV_PYTHON,
        "StandardOutput=journal",
    ):
        assert setting in text


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("shellcheck") is None, reason="shellcheck is not installed")
@pytest.mark.parametrize("script", [SYSTEMD / "install.sh", BOOTSTRAP], ids=lambda path: path.name)
def test_the_shell_scripts_pass_shellcheck(script):
    result = subprocess.run(["shellcheck", str(script)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout


@pytest.mark.parametrize("script", [SYSTEMD / "install.sh", BOOTSTRAP], ids=lambda path: path.name)
def test_on_a_pi_the_venv_keeps_apt_numpy_and_sees_picamera2(script):
    text = script.read_text()
    assert "--system-site-packages" in text and "numpy==" in text and "opencv-python-headless<4.12" in text
    assert "python3-picamera2" in text and "python3-lgpio" in text
