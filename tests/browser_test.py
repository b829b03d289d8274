#!/usr/bin/env python3
"""browser_test.py: the map page (docs/operations.md, "The map page") in a
real browser: Debian's chromium, headless, driven by Debian's
python3-selenium through chromium-driver, against the real westd on
127.0.0.1 (TAP output).

westd runs from the build directory on a free port with the default
terrain, the CPU backend and 100 iterations, its state in a temp
directory; the sample observations (data/obs/default.json, their time set
to AGE_S ago) make field v1 before the page opens.  Checks: the page is
what / gives a browser; the header shows the current field version; the
age it shows is the API's age_seconds (both from the valid time, not from
the publish time seconds ago); arrows are
drawn (the wind canvas has pixels, none with arrows off, others at another
height); a click shows the point query and the profile chart; a new
observation set changes the version shown within a few seconds; a release
placed with a click and posted from the form is drawn (footprint, legend,
trajectory) when its run ends; the streamlines animate; and the browser
console has no error (SEVERE entry).
The screenshot goes to BUILDDIR/tests/ui.png.

Usage: browser_test.py (top_srcdir and top_builddir from the environment,
as make check sets them; default: the current directory; WESTD_ITERATIONS
instead of 100, e.g. 1000 for a converged field in the screenshot of
docs/operations.md; CHROMIUM, CHROMEDRIVER: other paths).  Exits 77 with
"1..0 # SKIP why" when chromium, chromedriver or selenium is missing
(tests/browser_test.sh turns that into the TAP skip); the machine needs no
network: the browser starts with a fresh profile and no background
traffic.
"""
import os
import shutil
import sys
import tempfile
import time

from westd_proc import BUILD, Westd, skip

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")
CLICK = (504000.0, 4653000.0)   # in the air at 10 m, 1.3 km from the nearest station
RELEASE_AT = (503000.0, 4652500.0)  # the release point the test places
SHOWN_S = 5                     # a new field on the page: "within a few seconds"
AGE_S = 630                     # v1's valid time before now: "10 min" on the page for 30 s


try:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait
except ImportError:
    skip(f"python3-selenium is not installed for {sys.executable}")
for path in (CHROMIUM, CHROMEDRIVER):
    if not os.access(path, os.X_OK):
        skip(f"{path} is missing (Debian: apt-get install chromium chromium-driver)")


def browser(profile):
    o = webdriver.ChromeOptions()
    o.binary_location = CHROMIUM
    for a in ("--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
              "--disable-background-networking", "--disable-component-update",
              "--disable-sync", "--disable-dev-shm-usage", f"--user-data-dir={profile}",
              "--window-size=1366,768"):
        o.add_argument(a)
    o.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(CHROMEDRIVER), options=o)


# Non-transparent pixels of a canvas, and a hash of them.
PIXELS_JS = """
const c = document.getElementById(arguments[0]);
const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
let n = 0, h = 0;
for (let i = 3; i < d.length; i += 4)
    if (d[i] > 0) { n++; h = (h * 31 + d[i - 3] + 7 * d[i - 2] + 13 * d[i - 1] + i) | 0; }
return [n, h];
"""


# Painted pixels of the wind canvas inside the domain and more than 40 CSS
# px outside it (an arrow reaches at most 29 px past its column centre).
WHERE_JS = """
const c = document.getElementById('wind'), g = westdMap.state.grid, r = c.width / c.clientWidth;
const [x0, y0] = westdMap.toScreen(g.x0, g.y0 + g.ny * g.dy);
const [x1, y1] = westdMap.toScreen(g.x0 + g.nx * g.dx, g.y0);
const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
let inside = 0, outside = 0;
for (let py = 0; py < c.height; py++)
    for (let px = 0; px < c.width; px++) {
        if (!d[4 * (py * c.width + px) + 3]) continue;
        const x = px / r, y = py / r;
        if (x >= x0 && x <= x1 && y >= y0 && y <= y1) inside++;
        else if (x < x0 - 40 || x > x1 + 40 || y < y0 - 40 || y > y1 + 40) outside++;
    }
return [inside, outside, x1 - x0];
"""


class Tap:
    def __init__(self, n):
        self.n, self.i, self.failed = n, 0, 0
        print(f"1..{n}", flush=True)

    def check(self, ok, name, why=""):
        self.i += 1
        print(f"{'ok' if ok else 'not ok'} {self.i} - {name}", flush=True)
        if not ok:
            self.failed += 1
            for line in str(why).splitlines():
                print(f"# {line}", flush=True)
        return ok


def wait(drv, cond, limit=10):
    """cond(drv) within limit s: its value, or None."""
    try:
        return WebDriverWait(drv, limit, poll_frequency=0.05).until(lambda d: cond(d))
    except Exception:    # TimeoutException, or a script error on the way
        return None


def run(tap, w, drv, shot):
    v1 = w.post_obs([4.4704, 7, 6], AGE_S)
    w.wait_version(v1)

    drv.get(w.url + "/")
    body = drv.execute_script("return document.contentType + ' ' + document.title")
    tap.check(body == "text/html westd wind map", "GET / in a browser is the map page", body)

    shown = wait(drv, lambda d: d.find_element(By.ID, "version").text == f"v{v1}")
    now = w.get("/v1/status")["field"]["version"]
    tap.check(shown and now == v1, f"the header shows the field version v{now}",
              f"header: {drv.find_element(By.ID, 'version').text!r}, westd: v{now}")

    # one meaning of age: the header's is the API's age_seconds (from the
    # valid time AGE_S ago), in whole minutes as the page writes it
    f = w.get("/v1/field")
    age = drv.find_element(By.ID, "age").text
    tap.check(age == f"{f['age_seconds'] // 60} min" and
              AGE_S <= f["age_seconds"] < AGE_S + 30 and f["published_seconds_ago"] < 30,
              f"the header's age {age!r} is the API's age_seconds {f['age_seconds']} "
              "(since the valid time)",
              f"header: {age!r}; /v1/field: valid {f['valid_time']}, age_seconds "
              f"{f['age_seconds']}, published {f['published_at']}, "
              f"{f['published_seconds_ago']} s ago")

    arrows = wait(drv, lambda d: d.execute_script(PIXELS_JS, "wind")[0] > 2000 and
                  d.execute_script(PIXELS_JS, "wind"))
    where = drv.execute_script(WHERE_JS)
    drv.find_element(By.ID, "arrows").click()
    off = wait(drv, lambda d: d.execute_script(PIXELS_JS, "wind")[0] == 0)
    drv.find_element(By.ID, "arrows").click()
    back = wait(drv, lambda d: d.execute_script(PIXELS_JS, "wind") == arrows)
    height = drv.find_element(By.ID, "height")
    drv.execute_script("arguments[0].value = +arguments[0].value + 3;"
                       "arguments[0].dispatchEvent(new Event('input'));", height)
    higher = wait(drv, lambda d: d.execute_script(PIXELS_JS, "wind") not in (arrows, [0, 0])
                  and d.execute_script("return westdMap.state.slice.z") > 10)
    drv.execute_script("arguments[0].value = +arguments[0].value - 3;"
                       "arguments[0].dispatchEvent(new Event('input'));", height)
    wait(drv, lambda d: d.execute_script("return westdMap.state.slice.z") == 10)
    tap.check(arrows and where[0] > 2000 and where[1] == 0 and off and back and higher,
              "arrows are drawn where the wind is (canvas pixels: in and off the domain, "
              "with arrows off, higher up)",
              f"with {arrows} ({where[0]} in the domain, {where[1]} off it), off {off}, "
              f"back {back}, at 50 m {higher}")

    # a click: the point query and the profile at CLICK, 10 m above ground
    m = drv.find_element(By.ID, "map")
    px, py = drv.execute_script("return westdMap.toScreen(arguments[0], arguments[1])", *CLICK)
    ActionChains(drv).move_to_element_with_offset(
        m, int(px - m.size["width"] / 2), int(py - m.size["height"] / 2)).click().perform()
    speed = wait(drv, lambda d: d.find_element(By.ID, "p-speed").text)
    want = w.get(f"/v1/field/point?x={CLICK[0]}&y={CLICK[1]}&z=10&version={v1}")["speed"]
    pick = drv.execute_script("return westdMap.state.pick")
    profile = drv.execute_script("return !document.getElementById('profile').hidden") and \
        drv.execute_script(PIXELS_JS, "profile")[0] > 500
    tap.check(speed and pick and abs(pick["x"] - CLICK[0]) < 300 and
              abs(pick["y"] - CLICK[1]) < 300 and
              abs(float(speed.split()[0]) - want) < 0.3 and profile,
              "a click shows the point query and the profile chart",
              f"speed shown {speed!r}, westd {want:.2f} near it; picked {pick}; "
              f"profile drawn {profile}")

    # a new observation set: the header follows within SHOWN_S of the
    # solve (which takes what it takes: a sanitizer build is slower)
    t0 = time.time()
    v2 = w.post_obs([8, 9, 10])
    w.wait_version(v2)
    t1 = time.time()
    shown = wait(drv, lambda d: d.find_element(By.ID, "version").text == f"v{v2}", SHOWN_S)
    tap.check(shown, f"a new observation set shows as v{v2} within {SHOWN_S} s of its solve "
              f"(solved {t1 - t0:.1f} s after the POST, shown {time.time() - t1:.1f} s later)",
              f"header: {drv.find_element(By.ID, 'version').text!r}")

    # a release: placed by a click, posted from the form, drawn when done
    drv.find_element(By.ID, "r-place").click()
    px, py = drv.execute_script("return westdMap.toScreen(arguments[0], arguments[1])",
                                *RELEASE_AT)
    ActionChains(drv).move_to_element_with_offset(
        m, int(px - m.size["width"] / 2), int(py - m.size["height"] / 2)).click().perform()
    for k, v in (("r-particles", "5000"), ("r-hours", "0.25"), ("r-duration", "300")):
        drv.execute_script("arguments[0].value = arguments[1]", drv.find_element(By.ID, k), v)
    drv.find_element(By.ID, "r-post").click()
    drawn = wait(drv, lambda d: d.execute_script(PIXELS_JS, "plume")[0] > 500, 60)
    status = drv.find_element(By.ID, "r-status").text
    levels = len(drv.find_elements(By.CSS_SELECTOR, "#r-legend li"))
    rel = w.get("/v1/releases")["releases"]
    tap.check(drawn and levels == 4 and status.startswith("Release 1 on field") and
              len(rel) == 1 and abs(rel[0]["release"]["x"] - RELEASE_AT[0]) < 300,
              "a release placed on the map and posted is drawn: footprint, legend, trajectory",
              f"plume pixels {drawn}, legend {levels} levels, status {status!r}, "
              f"westd {[(r['id'], r['status']) for r in rel]}")

    drv.find_element(By.ID, "streams").click()
    flow = wait(drv, lambda d: d.execute_script(PIXELS_JS, "flow")[0] > 500)
    drv.find_element(By.ID, "streams").click()
    tap.check(flow, "the streamlines animate")

    time.sleep(0.5)   # the header's tick, the last frame
    drv.save_screenshot(shot)
    tap.check(os.path.getsize(shot) > 10000, f"screenshot {shot}")

    log = drv.get_log("browser")
    for e in log:
        print(f"# console {e['level']}: {e['message']}")
    severe = [e for e in log if e["level"] == "SEVERE"]
    tap.check(not severe, "no errors in the browser console",
              "\n".join(e["message"] for e in severe))


def main():
    tmp = tempfile.mkdtemp(prefix="westd-browser-")
    shot = os.path.join(BUILD, "tests", "ui.png")
    os.makedirs(os.path.dirname(shot), exist_ok=True)
    w = drv = None
    tap = Tap(10)
    try:
        w = Westd(tmp, os.environ.get("WESTD_ITERATIONS", "100"))
        drv = browser(os.path.join(tmp, "profile"))
        run(tap, w, drv, shot)
    except Exception as e:
        print(f"Bail out! {type(e).__name__}: {e}".splitlines()[0])
        for line in str(e).splitlines()[1:]:
            print(f"# {line}")
        tap.failed += 1
    finally:
        if drv:
            drv.quit()
        if w:
            w.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    return 1 if tap.failed else 0


if __name__ == "__main__":
    sys.exit(main())
