"""The page in a real browser: Debian's chromium driven by Selenium through chromium-driver,
against the real loop on mock pins and the real server on a free port.

Pair by a (mock) button press, watch a move appear within a second of the referee announcing
it, ask for a hint and see the arrow, run the calibration wizard against the synthetic camera,
download a record and replay it. With ``GOBBLET_SCREENSHOTS=DIR`` each page is photographed
into DIR (how docs/web-*.png were made). Skipped, saying why, where chromium, its driver or
Selenium cannot be had; ``.ci/run`` installs the first two with apt.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from companion.rules.record import read_records
from companion.web.server import WebServer
from tests.web.conftest import Device

pytestmark = pytest.mark.slow

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "web_bench.py"


def _launcher():
    """``benchmarks/web_bench.py``'s ``browser``: one way to start chromium for both."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        pytest.skip("Selenium is not installed (pip install -e '.[test]')")
    if CHROMIUM is None or DRIVER is None:
        pytest.skip(
            "chromium and chromium-driver are not installed (apt-get install chromium chromium-driver)"
        )
    spec = importlib.util.spec_from_file_location("web_bench", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.browser


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[object]:
    launch = _launcher()
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    driver = launch(tmp_path / "profile", downloads)
    driver.downloads = downloads
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture
def site(device: Device) -> Iterator[str]:
    device.settings.port = 0
    server = WebServer(device.remote, device.settings).start()
    try:
        yield server.url.rstrip("/")
    finally:
        server.close()


def shoot(driver, name: str) -> None:
    folder = os.environ.get("GOBBLET_SCREENSHOTS")
    if folder:
        height = driver.execute_script("return document.body.scrollHeight")
        driver.set_window_size(430, max(600, min(int(height) + 140, 2400)))
        driver.execute_script("window.scrollTo(0, 0)")
        driver.save_screenshot(str(Path(folder) / f"web-{name}.png"))


def wait(driver, condition, timeout: float = 10.0, poll: float = 0.02):
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout, poll_frequency=poll).until(condition)


def pair(driver, device: Device, url: str) -> None:
    from selenium.webdriver.common.by import By

    driver.get(url + "/")
    assert driver.current_url.endswith("/pair")
    shoot(driver, "pair")
    driver.find_element(By.CSS_SELECTOR, "#pair button").click()
    device.wait_for(lambda s: s.pairing)  # the LEDs blink: a press pairs
    device.press_button()
    wait(driver, lambda d: d.current_url == url + "/" and d.find_elements(By.CSS_SELECTOR, "svg.board"))


def text_of(driver, element_id: str) -> str:
    return driver.execute_script(f"return document.getElementById('{element_id}')?.textContent || ''")


def test_pair_watch_a_move_live_and_see_the_hint_arrow(browser, device: Device, site: str) -> None:
    from selenium.webdriver.common.by import By

    pair(browser, device, site)
    assert device.companion.hints.pending is None  # the pairing press asked no hint
    for move in ("4a1", "4d4", "3b2"):
        device.play(move)
        announced = next(e["timestamp"] for _, e in reversed(device.remote.events) if e.get("move") == move)
        wait(browser, lambda d, move=move: text_of(d, "last") == move, timeout=3)
        shown = time.time()
        assert shown - announced < 1.0, f"{move} shown {shown - announced:.2f} s after it was announced"
    # the event log is a message of its own, after the state's: it may land a moment later
    wait(browser, lambda d: "3b2" in text_of(d, "events"), timeout=3)
    browser.find_element(By.CSS_SELECTOR, '[data-square="b2"]').click()
    assert text_of(browser, "stack").startswith("b2: white 3")
    browser.find_element(By.ID, "hint").click()
    arrow = wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "g.hint line.arrow"))
    assert arrow[0].get_attribute("x1")
    assert device.remote.snapshot.hint == browser.find_element(By.CSS_SELECTOR, "g.hint").get_attribute(
        "data-hint"
    )
    shoot(browser, "live")


def test_download_a_record_that_replays_and_browse_the_games(browser, device: Device, site: str) -> None:
    from selenium.webdriver.common.by import By

    pair(browser, device, site)
    device.play("4a1", "4d4", "3a2", "3d3")
    game_id = device.companion.game_id
    browser.get(site + "/games")
    shoot(browser, "games")
    browser.find_element(By.CSS_SELECTOR, f'a[href="/games/{game_id}"]').click()
    slider = wait(browser, lambda d: d.find_element(By.ID, "slider"))
    browser.execute_script("arguments[0].value = 2; arguments[0].dispatchEvent(new Event('input'))", slider)
    wait(browser, lambda d: text_of(d, "move") == "ply 2: 4d4")
    shoot(browser, "replay")
    browser.find_element(By.ID, "download").click()
    record = wait(browser, lambda d: next(iter(d.downloads.glob("*.txt")), None))
    (game,) = read_records(record.read_text(encoding="utf-8"))
    assert [m.text() for m in game.moves] == ["4a1", "4d4", "3a2", "3d3"]


def test_a_reviewed_game_jumps_to_its_blunder_from_the_graph(browser, device: Device, site: str) -> None:
    """The review's graph on the replay page: clicking the blunder's dot moves the replay
    to the position after it, with the verdict in words; the missed win's button too."""
    from selenium.webdriver.common.by import By

    from companion.coach import review_game
    from companion.log import GameStore

    pair(browser, device, site)
    device.play("4a1", "4d4", "4b1", "4c4", "4c1", "4b4", "3a4")
    game_id = device.companion.game_id
    review = review_game(device.game, nodes=800)
    with GameStore(device.settings.database) as store:
        store.save_review(game_id, device.game.ply, review.method, review.to_json())
    browser.get(f"{site}/games/{game_id}")
    dot = wait(browser, lambda d: d.find_element(By.CSS_SELECTOR, 'svg.evaluation circle.mark[data-ply="6"]'))
    browser.execute_script("arguments[0].dispatchEvent(new MouseEvent('click', {bubbles: true}))", dot)
    wait(browser, lambda d: text_of(d, "move").startswith("ply 6: 4b4?? — Blunder"))
    assert browser.find_element(By.ID, "slider").get_attribute("value") == "6"
    assert text_of(browser, "ply") == "6"
    browser.find_element(By.CSS_SELECTOR, 'button.jump[data-ply="7"]').click()
    wait(browser, lambda d: text_of(d, "move").startswith("ply 7: 3a4? — Missed win"))
    shoot(browser, "review")


def test_the_calibration_wizard_against_the_synthetic_camera(browser, device: Device, site: str) -> None:
    from selenium.webdriver.common.by import By

    from companion.vision.synth import SceneRenderer

    scene = SceneRenderer(seed=3, size=4, max_piece=4)
    device.settings.calibration.write_text("the old calibration\n")
    pair(browser, device, site)
    device.table.image = scene.empty()
    browser.get(site + "/camera")
    wait(
        browser,
        lambda d: (
            "markers 0, 1, 2, 3" in text_of(d, "preview-facts")
            or "calibration" in text_of(d, "preview-facts")
        ),
    )

    def step(driver) -> str | None:
        return driver.execute_script("return document.getElementById('wizard')?.dataset.step")

    assert step(browser) == "empty"
    browser.find_element(By.CSS_SELECTOR, '[data-action="/api/calibration/empty"]').click()
    wait(browser, lambda d: step(d) == "reference", timeout=30)
    device.table.image = scene.reference()
    browser.find_element(By.CSS_SELECTOR, '[data-action="/api/calibration/reference"]').click()
    wait(browser, lambda d: step(d) == "result", timeout=60)
    learned = browser.find_element(By.ID, "wizard").text
    assert "found by markers 0, 1, 2, 3" in learned and "white cups" in learned
    browser.find_element(By.CSS_SELECTOR, '[data-action="/api/calibration/save"]').click()
    wait(browser, lambda d: step(d) == "saved", timeout=30)
    from companion.vision.calibration import Calibration

    assert Calibration.load(device.settings.calibration, 4).reference
    kept = device.settings.calibration.with_name("calibration.json.old")
    assert kept.read_text() == "the old calibration\n"
    facts = wait(
        browser,
        lambda d: "squares read surely" in text_of(d, "preview-facts") and text_of(d, "preview-facts"),
        timeout=20,
    )
    assert "markers 0, 1, 2, 3" in facts
    shoot(browser, "camera")


@pytest.mark.parametrize(
    ("square", "cup", "finding"),
    [
        ("b4", (1, 1), "the black cup on b4 measures like a black 1 (a4's size)"),
        ("d1", (1, 4), "the size-4 cup on d1 looks black, not white"),
    ],
)
def test_a_refused_reference_calibrated_anyway_in_the_browser(
    browser, device: Device, site: str, square: str, cup: tuple[int, int], finding: str
) -> None:
    """The wizard refuses a reference whose cup measures like another size, or looks the other
    colour, and offers "They are already so: calibrate anyway", which calibrates the same frames
    with the layout on trust and says what that overruled."""
    from selenium.webdriver.common.by import By

    from companion.vision.calibration import Calibration
    from companion.vision.synth import SceneRenderer

    scene = SceneRenderer(seed=3, size=4, max_piece=4)
    slipped = scene.reference_tops()
    slipped[square] = cup  # a black 1 for the 2, or a black 4 on White's d1
    pair(browser, device, site)
    device.table.image = scene.empty()
    browser.get(site + "/camera")

    def step(driver) -> str | None:
        return driver.execute_script("return document.getElementById('wizard')?.dataset.step")

    insist = '[data-action="/api/calibration/insist"]'
    browser.find_element(By.CSS_SELECTOR, '[data-action="/api/calibration/empty"]').click()
    wait(browser, lambda d: step(d) == "reference", timeout=30)
    assert not browser.find_elements(By.CSS_SELECTOR, insist)
    device.table.image = scene.render(slipped)
    browser.find_element(By.CSS_SELECTOR, '[data-action="/api/calibration/reference"]').click()
    button = wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, insist), timeout=60)[0]
    assert finding in text_of(browser, "wizard-problem")
    assert button.text == "They are already so: calibrate anyway"
    shoot(browser, "camera-refused")
    button.click()
    wait(browser, lambda d: step(d) == "result", timeout=60)
    assert f"taken on your word, overruling: {finding}" in browser.find_element(By.ID, "wizard").text
    browser.find_element(By.CSS_SELECTOR, '[data-action="/api/calibration/save"]').click()
    wait(browser, lambda d: step(d) == "saved", timeout=30)
    saved = Calibration.load(device.settings.calibration, 4)
    assert saved.layout_trusted and saved.overruled == (finding,)


def test_status_page_lists_this_browser(browser, device: Device, site: str) -> None:
    from selenium.webdriver.common.by import By

    pair(browser, device, site)
    browser.get(site + "/status")
    assert "(this browser)" in browser.find_element(By.CSS_SELECTOR, "table.tokens").text
    shoot(browser, "status")


def test_play_cups_by_tapping_and_replay_it(browser, device: Device, site: str) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    pair(browser, device, site)
    browser.get(site + "/cups")
    Select(browser.find_element(By.NAME, "opponent")).select_by_value("greedy")
    browser.find_element(By.CSS_SELECTOR, "#cups-new button").click()
    wait(browser, lambda d: text_of(d, "cups-status") == "White to move")
    browser.find_element(By.CSS_SELECTOR, '[data-move="s4"]').click()
    wait(browser, lambda d: text_of(d, "cups-moves").startswith("s4 "))
    taps = browser.find_elements(By.CSS_SELECTOR, "#board [data-move]")
    assert taps, "White has moves to tap after the engine's answer"
    before = text_of(browser, "cups-moves")
    taps[-1].click()
    wait(browser, lambda d: len(text_of(d, "cups-moves").split()) > len(before.split()))
    browser.find_element(By.ID, "cups-hint-button").click()
    wait(browser, lambda d: text_of(d, "cups-hint").startswith("hint: "))
    shoot(browser, "cups")
    played = text_of(browser, "cups-moves").split()
    browser.get(site + "/games")
    link = browser.find_elements(By.CSS_SELECTOR, "table.games a")[0]  # most recent first: the Cups game
    link.click()
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "svg.cups"))
    assert text_of(browser, "move") == f"ply {len(played)}: {played[-1]}"
