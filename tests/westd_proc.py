"""westd_proc.py: the real westd for the Python end-to-end tests
(browser_test.py, owslib_test.py, geotiff_gdal.py): the daemon from the
build directory on a free port of 127.0.0.1, the default terrain, the CPU
backend, its state in a temp directory; the sample observations posted at a
chosen time; its log shown when a test failed; the TAP output of checks;
and the TAP skip.  top_srcdir and top_builddir come from the environment,
as make check sets them (default: the current directory).
"""
import datetime
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request

SRC = os.path.abspath(os.environ.get("top_srcdir", "."))
BUILD = os.path.abspath(os.environ.get("top_builddir", "."))


def skip(why):
    """The TAP plan of a skipped script, and automake's skip code."""
    print(f"1..0 # SKIP {why}")
    sys.exit(77)


class Tap:
    """The TAP plan of n checks, and each check's line."""

    def __init__(self, n, why_lines=20):
        self.n, self.i, self.failed = n, 0, 0
        self.why_lines = why_lines
        print(f"1..{n}", flush=True)

    def check(self, name, fn):
        """One check: fn() returns None when it holds, else a string saying
        what is wrong; an exception (a library's or a tool's) fails it too.
        The first why_lines lines of what is wrong follow as comments."""
        self.i += 1
        try:
            why = fn()
        except Exception as e:     # a library's or a tool's failure is this check's
            why = f"{type(e).__name__}: {e}"
        print(f"{'not ok' if why else 'ok'} {self.i} - {name}", flush=True)
        if why:
            self.failed += 1
            for line in str(why).splitlines()[:self.why_lines]:
                print(f"# {line}", flush=True)


def sample_obs(speeds=None, ago=0):
    """The sample set (data/obs/default.json) at the time ago s before now,
    with these station speeds when given."""
    with open(os.path.join(SRC, "data/obs/default.json")) as f:
        doc = json.load(f)
    when = (datetime.datetime.now(datetime.timezone.utc) -
            datetime.timedelta(seconds=ago)).strftime("%Y-%m-%dT%H:%M:%SZ")
    for n, o in enumerate(doc["observations"]):
        o["time"] = when
        if speeds is not None:
            o["speed"] = speeds[n]
    return doc


class Westd:
    """The daemon under test, on a free port with its state in tmp, doing
    at most `iterations` solver iterations."""

    def __init__(self, tmp, iterations):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        self.port = s.getsockname()[1]
        s.close()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = open(os.path.join(tmp, "westd.log"), "w+")
        argv = [os.path.join(BUILD, "westd"), "--foreground"]
        for kv in (f"terrain={SRC}/data/default.asc", f"listen=127.0.0.1:{self.port}",
                   f"state_dir={tmp}/state", "backend=cpu", f"iterations={iterations}"):
            argv += ["--set", kv]
        self.proc = subprocess.Popen(argv, stdout=self.log, stderr=subprocess.STDOUT)
        for _ in range(600):
            if self.proc.poll() is not None:
                break
            try:
                self.get("/livez")
                return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("westd did not answer /livez:\n" + self.log_text())

    def log_text(self):
        self.log.seek(0)
        return self.log.read()

    def get(self, path):
        with urllib.request.urlopen(self.url + path, timeout=10) as r:
            return json.load(r)

    def post_obs(self, speeds=None, ago=0):
        """sample_obs(speeds, ago) posted; the version promised."""
        return self.post(sample_obs(speeds, ago))

    def post(self, doc):
        """The observation set doc posted; the version promised."""
        req = urllib.request.Request(self.url + "/v1/observations",
                                     data=json.dumps(doc).encode(),
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=10) as r:
            return json.load(r)["field_version"]

    def wait_version(self, v, limit=60):
        t0 = time.time()
        while time.time() - t0 < limit:
            f = self.get("/v1/status")["field"]
            if f and f["version"] >= v:
                return
            time.sleep(0.05)
        raise RuntimeError(f"no field v{v} within {limit} s:\n" + self.log_text())

    def stop(self, show_log=False):
        """Stop the daemon; show_log (a test failed): then its log's last 30
        lines as TAP comments."""
        self.proc.terminate()
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        if show_log:
            for line in self.log_text().splitlines()[-30:]:
                print(f"# westd: {line}")
