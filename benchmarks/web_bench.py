"""Web page benchmark: page load time, event-to-browser latency, the loop's frame rate with and
without a browser on the page (in one run, alternated), and memory.

    python benchmarks/web_bench.py [--seed 0] [--fps 15] [--loads 10] [--phase 6] [--rounds 3]

Everything runs in this process: the simulated device (``run_device`` with the synthetic
renderer and the real board reader, mock pins, a game log in a temporary folder) on a thread,
the page's server on its own, and Debian's chromium (headless, through Selenium and
chromium-driver) as the browser, paired by issuing it a token.

1. Latency: a game played at ``--fps`` frames a second with the live page open; the page
   notes (with a MutationObserver) when each move appears, compared with the time stamp the
   referee gave the move event. Same machine, same clock.
2. Page load: each page loaded ``--loads`` times (Navigation Timing: request to load event).
3. Frame rate: a second, unpaced game; once it is over the loop keeps reading the final board
   as fast as it can, and the frames per second are counted in alternating phases: no browser
   connected, the live page open, the camera page open (its preview redrawn ~3 times a second).
4. Memory: the process's resident set before the server starts and at the end.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

from companion.device.app import RunOptions, run_device
from companion.device.config import DeviceConfig
from companion.device.loop import Players
from companion.device.remote import Remote
from companion.rules import Variant
from companion.web.guard import TOKEN_COOKIE
from companion.web.server import WebServer
from companion.web.site import WebSettings
from companion.web.tokens import TokenStore

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=430,1500",
)
WATCH_MOVES = """
window.__seen = [];
const last = document.getElementById('last');
new MutationObserver(() => window.__seen.push([Date.now() / 1000, last.textContent]))
  .observe(last, {childList: true, characterData: true, subtree: true});
"""
LOAD_TIME = "const t = performance.getEntriesByType('navigation')[0]; return [t.responseEnd, t.loadEventEnd];"


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def browser(profile: Path, downloads: Path | None = None):
    """Debian's chromium through chromium-driver, headless, with a fresh profile (the browser
    tests launch it through this too)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "chromium"
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={profile}")
    if downloads is not None:
        prefs = {"download.default_directory": str(downloads), "download.prompt_for_download": False}
        options.add_experimental_option("prefs", prefs)
    return webdriver.Chrome(service=Service(shutil.which("chromedriver") or "chromedriver"), options=options)


def start_device(
    remote: Remote, folder: Path, seed: int, fps: float | None
) -> tuple[threading.Thread, threading.Event]:
    stop = threading.Event()
    options = RunOptions(
        config=DeviceConfig(),
        variant=Variant.from_spec("classic"),
        database=folder / "games.sqlite3",
        calibration=folder / "calibration.json",
        simulate=True,
        players=Players("White", "Black", "bench"),
        seed=seed,
        resume=False,
        echo=None,
        fps=fps,
        remote=remote,
        linger=True,
        stop=stop,
    )
    thread = threading.Thread(target=run_device, args=(options,), name="device", daemon=True)
    thread.start()
    return thread, stop


def wait_until(condition, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.05)
    raise SystemExit(f"web_bench: gave up after {timeout} s")


def latency(driver, remote: Remote, url: str) -> list[float]:
    driver.get(url + "/")
    driver.execute_script(WATCH_MOVES)
    wait_until(lambda: remote.snapshot is not None and remote.snapshot.over, 300)
    time.sleep(1.0)
    seen: list[list] = driver.execute_script("return window.__seen")
    delays = []
    for _, event in remote.events:
        if event.get("type") != "move":
            continue
        shown = next((t for t, text in seen if text == event["move"] and t >= event["timestamp"] - 0.5), None)
        if shown is not None:
            delays.append(shown - event["timestamp"])
    return delays


def page_loads(driver, url: str, loads: int) -> dict[str, tuple[float, float]]:
    out = {}
    for path in ("/", "/games", "/games/1", "/status", "/camera"):
        times = []
        for _ in range(loads):
            driver.get(url + path)
            response_end, load_end = driver.execute_script(LOAD_TIME)
            times.append((response_end, load_end))
        out[path] = (statistics.median(t[0] for t in times), statistics.median(t[1] for t in times))
    return out


def frame_rates(driver, remote: Remote, url: str, phase: float, rounds: int) -> dict[str, list[float]]:
    wait_until(lambda: remote.snapshot is not None and remote.snapshot.over, 300)
    rates: dict[str, list[float]] = {"no browser": [], "live page": [], "camera page": []}
    for _ in range(rounds):
        for name, path in (("no browser", "about:blank"), ("live page", "/"), ("camera page", "/camera")):
            driver.get(path if path.startswith("about:") else url + path)
            time.sleep(1.0)  # the page settles
            first = remote.frame.number if remote.frame else 0
            time.sleep(phase)
            last = remote.frame.number if remote.frame else 0
            rates[name].append((last - first) / phase)
    return rates


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--fps", type=float, default=15.0, help="camera pace of the latency game")
    parser.add_argument("--loads", type=int, default=10)
    parser.add_argument("--phase", type=float, default=6.0, help="seconds per frame-rate phase")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    if not (shutil.which("chromium") and shutil.which("chromedriver")):
        print("web_bench: needs chromium and chromium-driver (apt-get install chromium chromium-driver)")
        return 2
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)
        remote = Remote()
        device, stop = start_device(remote, folder, args.seed, args.fps)
        wait_until(lambda: remote.snapshot is not None, 60)
        before = rss_mb()
        tokens = TokenStore(folder / "web-tokens.json")
        _, token = tokens.issue("bench")
        settings = WebSettings(
            database=folder / "games.sqlite3", calibration=folder / "calibration.json", data=folder, port=0
        )
        server = WebServer(remote, settings, tokens).start()
        url = server.url.rstrip("/")
        driver = browser(folder / "profile")
        try:
            driver.get(url + "/pair")
            driver.add_cookie({"name": TOKEN_COOKIE, "value": token, "path": "/"})
            delays = latency(driver, remote, url)
            loads = page_loads(driver, url, args.loads)
            stop.set()
            device.join()
            rates = run_for_rates(driver, remote, folder, args, url)
            after = rss_mb()
        finally:
            driver.quit()
            server.close()
    print(f"machine: {sys.platform}, CPython {sys.version.split()[0]}")
    print(
        f"event to browser, {len(delays)} moves at {args.fps:g} frames/s: median "
        f"{1000 * statistics.median(delays):.0f} ms, max {1000 * max(delays):.0f} ms"
    )
    for path, (response, load) in loads.items():
        print(f"page {path}: response {response:.0f} ms, loaded {load:.0f} ms (median of {args.loads})")
    for name, values in rates.items():
        print(
            f"loop frame rate, {name}: "
            + ", ".join(f"{v:.1f}" for v in values)
            + f" frames/s (median {statistics.median(values):.1f})"
        )
    print(f"resident memory: {before:.0f} MB before the server, {after:.0f} MB at the end")
    return 0


def run_for_rates(
    driver, remote: Remote, folder: Path, args: argparse.Namespace, url: str
) -> dict[str, list[float]]:
    """A second device, unpaced, on the same page and server (the Remote carries over)."""
    second = folder / "second"
    second.mkdir()
    device, stop = start_device(remote, second, args.seed, None)
    try:
        time.sleep(1.0)
        wait_until(lambda: remote.snapshot is not None and not remote.snapshot.over, 60)
        return frame_rates(driver, remote, url, args.phase, args.rounds)
    finally:
        stop.set()
        device.join()


if __name__ == "__main__":
    sys.exit(main())
