"""westd_proc.py: the real westd for the Python end-to-end tests
(browser_test.py, owslib_test.py): the daemon from the build directory on a
free port of 127.0.0.1, the default terrain, the CPU backend, its state in a
temp directory; the sample observations posted at a chosen time; and the
TAP skip.  top_srcdir and top_builddir come from the environment, as make
check sets them (default: the current directory).
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
        """The sample set (data/obs/default.json) at the time ago s before
        now, with these station speeds when given; the version promised."""
        with open(os.path.join(SRC, "data/obs/default.json")) as f:
            doc = json.load(f)
        when = (datetime.datetime.now(datetime.timezone.utc) -
                datetime.timedelta(seconds=ago)).strftime("%Y-%m-%dT%H:%M:%SZ")
        for n, o in enumerate(doc["observations"]):
            o["time"] = when
            if speeds is not None:
                o["speed"] = speeds[n]
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

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
