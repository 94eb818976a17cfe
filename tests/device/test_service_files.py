"""The systemd unit passes systemd-analyze verify; the install script passes shellcheck."""

from __future__ import annotations

import os
import re
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


# ----- issue 12, defect 11: the service ---------------------------------------------------------


def unit_settings() -> dict[str, list[str]]:
    settings: dict[str, list[str]] = {}
    for line in UNIT.read_text().splitlines():
        if "=" in line and not line.startswith("#"):
            key, value = line.split("=", 1)
            settings.setdefault(key, []).append(value)
    return settings


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed")
def test_the_unit_is_rated_3_or_below_by_systemd_analyze_security(tmp_path):
    unit = tmp_path / UNIT.name
    unit.write_text(UNIT.read_text())
    result = subprocess.run(
        ["systemd-analyze", "security", "--offline=yes", "--no-pager", str(unit)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    found = re.search(r"Overall exposure level for \S+: (\d+\.\d+)", result.stdout)
    assert found is not None, result.stdout + result.stderr
    assert float(found.group(1)) <= 3.0, result.stdout


def test_the_unit_allows_what_the_device_needs_and_no_more():
    settings = unit_settings()
    assert "After" not in settings or "systemd-udev-settle.service" not in " ".join(settings["After"])
    assert settings["DevicePolicy"] == ["closed"]
    allowed = {value.split()[0] for value in settings["DeviceAllow"]}
    assert allowed == {
        "char-gpiochip",
        "char-video4linux",
        "char-media",
        "char-dma_heap",
        "char-spidev",
        "char-alsa",
    }
    families = set(settings["RestrictAddressFamilies"][0].split())
    assert {"AF_UNIX", "AF_INET", "AF_INET6"} <= families  # journal and notify; the web page on the LAN
    assert settings["CapabilityBoundingSet"] == [""] and settings["UMask"] == ["0077"]


def test_the_state_directory_mode_is_the_installers():
    installer = re.search(r"^STATE_MODE=(\d+)", (SYSTEMD / "install.sh").read_text(), re.MULTILINE)
    assert installer is not None
    assert unit_settings()["StateDirectoryMode"] == [installer.group(1)]


def run_step(script: Path, step: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    """One function of install.sh, the script sourced (its main does not run)."""
    return subprocess.run(
        ["bash", "-c", f'source "{script}" && {step}'],
        env={"PATH": "/usr/bin:/bin:/usr/sbin:/sbin", **env},
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.skipif(os.geteuid() != 0, reason="making files of another owner needs root")
def test_install_copies_the_program_as_root_and_removes_what_an_upgrade_dropped(tmp_path):
    checkout = tmp_path / "checkout"
    (checkout / "systemd").mkdir(parents=True)
    (checkout / "companion").mkdir()
    shutil.copy(SYSTEMD / "install.sh", checkout / "systemd" / "install.sh")
    (checkout / "pyproject.toml").write_text("[project]\n")
    (checkout / "companion" / "kept.py").write_text("kept = 1\n")
    (checkout / "companion" / "dropped.py").write_text("dropped = 1\n")
    for path in checkout.rglob("*"):
        os.chown(path, 1234, 1234)  # the checkout belongs to a user, pi say
    prefix = tmp_path / "opt"
    script = checkout / "systemd" / "install.sh"
    first = run_step(script, "copy_program", {"PREFIX": str(prefix)})
    assert first.returncode == 0, first.stderr
    installed = prefix / "src"
    assert (installed / "companion" / "dropped.py").exists()
    assert {(p.stat().st_uid, p.stat().st_gid) for p in [installed, *installed.rglob("*")]} == {(0, 0)}
    assert not any(p.stat().st_mode & 0o022 for p in installed.rglob("*"))  # nobody else may write
    (checkout / "companion" / "dropped.py").unlink()
    again = run_step(script, "copy_program", {"PREFIX": str(prefix)})
    assert again.returncode == 0, again.stderr
    assert (installed / "companion" / "kept.py").exists()
    assert not (installed / "companion" / "dropped.py").exists()
    assert sorted(p.name for p in prefix.iterdir()) == ["src"]
