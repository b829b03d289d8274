#!/usr/bin/env python3
"""loo.py: leave-one-out validation of westd on real station records.

For every observation time and every station at that time, westd is given
the OTHER stations' rows (POST /v1/observations, text/csv), the new field
is awaited, and the wind at the held-out station (its position, its
measurement height above the ground) is asked of that field version
(GET /v1/field/point).  A terrain-blind baseline is computed from the same
rows: inverse-distance-squared interpolation of the other stations' u and
v at the held-out station's x, y (no height adjustment).  The script prints
markdown tables, per station and overall, for westd and the baseline.

    loo.py --westd BUILD/westd --dem DEM.asc [--port 18080]
           [--set KEY=VALUE ...] [--group-seconds N] [--exclude ID ...]
           [--min-others 2] [--max-seconds 3600] [--json OUT.json]
           [--from ID] STATIONS.csv [MORE.csv ...]

The CSV files are WindNinja station files as westd reads them (docs/api.md,
"CSV (WindNinja station format)").  Rows are grouped into observation times
by their date_time: exactly equal times by default; with --group-seconds N,
a row belongs to the multiple of N nearest its time (a row half-way between
two goes to the earlier), so that stations reporting at different minutes
of the hour form one set.  Rows keep their own times when posted.

With --from ID the other stations are not used: every station is predicted
from station ID's row of the same time alone (the reference-site test of
hill studies such as Askervein), and the baseline is that row's wind
unchanged.  Each time is then posted and solved once.

westd is started on 127.0.0.1:PORT, in the foreground, with a temporary
state directory, no snapshots, a random write token and the terrain DEM;
each --set is passed to it unchanged (e.g. --set backend=cpu --set dz=10
--set nz=80).  It is stopped when the script ends, also on an error or an
interrupt.  The run stops by itself after --max-seconds (the tables then
cover the cases done and say so).

Statistics: vector RMSE = sqrt(mean |V_pred - V_obs|^2) over the horizontal
wind; speed bias = mean(pred speed - obs speed); direction error = mean
absolute angle between predicted and observed direction, over the cases
where both speeds are >= 1 m/s.  A case westd does not answer (the POST
refused, the solve failed, the point refused as not in the air: 422) is
counted, listed, and left out of westd's statistics; the baseline is given
on every case and, for the ratio, on the cases westd answered.

Python 3 standard library only.
"""

import argparse
import calendar
import csv
import io
import json
import math
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

HEADER = ["Station_Name", "Coord_Sys(PROJCS,GEOGCS)", "Datum(WGS84,NAD83,NAD27)",
          "Lat/YCoord", "Lon/XCoord", "Height", "Height_Units(meters,feet)",
          "Speed", "Speed_Units(mph,kph,mps,kts)", "Direction(degrees)",
          "Temperature", "Temperature_Units(F,C)", "Cloud_Cover(%)",
          "Radius_of_Influence",
          "Radius_of_Influence_Units(miles,feet,meters,km)", "date_time"]
SPEED_UNITS = {"mph": 0.44704, "kph": 1 / 3.6, "mps": 1.0, "kts": 1852 / 3600}
HEIGHT_UNITS = {"meters": 1.0, "feet": 0.3048}
CALM_DIR = 1.0   # m/s: directions are compared at or above this speed


class Stop(Exception):
    pass


def die(msg):
    raise Stop(msg)


# ---------------------------------------------------------------- geometry
class TransverseMercator:
    """Forward transverse Mercator on WGS 84 (Krueger series to n^4, after
    Karney 2011; sub-millimetre within a UTM zone), from a .prj's
    Transverse_Mercator parameters.  Used only to place GEOGCS stations
    for the baseline; westd projects them itself for its own queries."""

    def __init__(self, prj_text):
        def par(name, default=None):
            m = re.search(r'PARAMETER\["%s",\s*([-+0-9.eE]+)\]' % name, prj_text, re.I)
            if m:
                return float(m.group(1))
            if default is None:
                die("the .prj has no %s parameter" % name)
            return default
        if not re.search(r'PROJECTION\["Transverse_Mercator"\]', prj_text, re.I):
            die("the .prj is not a Transverse_Mercator projection")
        self.lon0 = math.radians(par("Central_Meridian"))
        self.lat0 = math.radians(par("Latitude_Of_Origin", 0.0))
        self.k0 = par("Scale_Factor")
        self.fe = par("False_Easting")
        self.fn = par("False_Northing")
        f = 1 / 298.257223563
        a = 6378137.0
        n = f / (2 - f)
        self.e = math.sqrt(f * (2 - f))
        self.A = a / (1 + n) * (1 + n ** 2 / 4 + n ** 4 / 64)
        self.alpha = [n / 2 - 2 * n ** 2 / 3 + 5 * n ** 3 / 16 + 41 * n ** 4 / 180,
                      13 * n ** 2 / 48 - 3 * n ** 3 / 5 + 557 * n ** 4 / 1440,
                      61 * n ** 3 / 240 - 103 * n ** 4 / 140,
                      49561 * n ** 4 / 161280]
        self.y_origin = self._xy(self.lon0, self.lat0)[1]

    def _xy(self, lon, lat):
        e = self.e
        t = math.sinh(math.atanh(math.sin(lat)) - e * math.atanh(e * math.sin(lat)))
        dl = lon - self.lon0
        xi = math.atan2(t, math.cos(dl))
        eta = math.atanh(math.sin(dl) / math.sqrt(1 + t * t))
        x, y = eta, xi
        for j, al in enumerate(self.alpha, 1):
            x += al * math.cos(2 * j * xi) * math.sinh(2 * j * eta)
            y += al * math.sin(2 * j * xi) * math.cosh(2 * j * eta)
        return self.k0 * self.A * x, self.k0 * self.A * y

    def forward(self, lon_deg, lat_deg):
        x, y = self._xy(math.radians(lon_deg), math.radians(lat_deg))
        return self.fe + x, self.fn + y - self.y_origin


# ---------------------------------------------------------------- input
def parse_time(s):
    m = re.fullmatch(r"(\d{4})-(\d\d)-(\d\d)[Tt](\d\d):(\d\d):(\d\d)(?:\.\d+)?([Zz]|[-+]\d\d:\d\d)", s)
    if not m:
        die("date_time %r is not ISO 8601 (YYYY-MM-DDThh:mm:ssZ)" % s)
    t = calendar.timegm(tuple(int(v) for v in m.groups()[:6]))
    z = m.group(7)
    if z not in ("Z", "z"):
        sign = 1 if z[0] == "+" else -1
        t -= sign * (int(z[1:3]) * 3600 + int(z[4:6]) * 60)
    return t


def iso(t):
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


def read_rows(paths, tm):
    rows = []
    for path in paths:
        with open(path, newline="") as f:
            text = f.read().lstrip("\ufeff")
        lines = [l for l in text.splitlines() if l.strip()]
        if not lines:
            die("%s: empty" % path)
        if lines[0].strip().replace('"', "") != ",".join(HEADER):
            die("%s: the header is not WindNinja's station header" % path)
        for n, line in enumerate(lines[1:], 2):
            f = [c.strip() for c in next(csv.reader([line]))]
            if len(f) != 16:
                die("%s:%d: %d fields, expected 16" % (path, n, len(f)))
            where = "%s:%d" % (path, n)
            try:
                hu = HEIGHT_UNITS[f[6].lower()]
                su = SPEED_UNITS[f[8].lower()]
                r = {"id": f[0], "sys": f[1].upper(), "a": float(f[3]), "b": float(f[4]),
                     "height": float(f[5]) * hu, "speed": float(f[7]) * su,
                     "dir": float(f[9]), "time": parse_time(f[15]), "line": line,
                     "where": where}
            except (KeyError, ValueError) as e:
                die("%s: %s" % (where, e))
            if r["sys"] == "PROJCS":
                r["x"], r["y"] = r["b"], r["a"]
            elif r["sys"] == "GEOGCS":
                if tm is None:
                    die("%s: GEOGCS station but the DEM's .prj has no transverse Mercator" % where)
                r["x"], r["y"] = tm.forward(r["b"], r["a"])
            else:
                die("%s: Coord_Sys %r" % (where, f[1]))
            d = math.radians(r["dir"])
            r["u"] = -r["speed"] * math.sin(d)
            r["v"] = -r["speed"] * math.cos(d)
            rows.append(r)
    return rows


def group_rows(rows, group_seconds):
    groups = {}
    for r in rows:
        if group_seconds > 0:
            key = math.ceil((r["time"] - group_seconds / 2) / group_seconds) * group_seconds
        else:
            key = r["time"]
        groups.setdefault(key, []).append(r)
    out = []
    for key in sorted(groups):
        g = sorted(groups[key], key=lambda r: r["id"])
        ids = [r["id"] for r in g]
        dup = {i for i in ids if ids.count(i) > 1}
        if dup:
            die("time %s: station(s) %s twice in one group (use a smaller --group-seconds)"
                % (iso(key), ", ".join(sorted(dup))))
        out.append((key, g))
    return out


# ---------------------------------------------------------------- westd
class Westd:
    def __init__(self, binary, dem, port, sets, tmp):
        self.base = "http://127.0.0.1:%d" % port
        self.token = secrets.token_hex(16)
        self.log_path = os.path.join(tmp, "westd.log")
        args = [binary, "--foreground",
                "--set", "terrain=%s" % os.path.abspath(dem),
                "--set", "listen=127.0.0.1:%d" % port,
                "--set", "state_dir=%s" % os.path.join(tmp, "state"),
                "--set", "snapshot_dir=",
                "--set", "spool_dir=",
                "--set", "observations_keep=4",
                "--set", "max_field_age=0",
                "--set", "obs_max_age=0",   # the records are years old
                "--set", "api_token=%s" % self.token]
        for s in sets:
            args += ["--set", s]
        self.log = open(self.log_path, "w")
        self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=self.log,
                                     stderr=subprocess.STDOUT, start_new_session=True)

    def log_tail(self, n=20):
        try:
            with open(self.log_path) as f:
                return "".join(f.readlines()[-n:])
        except OSError:
            return ""

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()

    def request(self, method, path, body=None, ctype=None, timeout=60):
        req = urllib.request.Request(self.base + path, data=body, method=method)
        if ctype:
            req.add_header("Content-Type", ctype)
        if method == "POST":
            req.add_header("Authorization", "Bearer " + self.token)
        try:
            with urllib.request.urlopen(req, timeout=timeout) as resp:
                return resp.status, resp.read()
        except urllib.error.HTTPError as e:
            return e.code, e.read()

    def json(self, method, path, body=None, ctype=None):
        code, data = self.request(method, path, body, ctype)
        try:
            return code, json.loads(data.decode() or "null")
        except ValueError:
            return code, {"detail": data[:200].decode(errors="replace")}

    def wait_live(self, deadline):
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                die("westd exited (status %s) at start:\n%s" % (self.proc.returncode, self.log_tail()))
            try:
                if self.request("GET", "/livez", timeout=2)[0] == 200:
                    return
            except (urllib.error.URLError, OSError):
                pass
            time.sleep(0.1)
        die("westd did not answer /livez in time:\n" + self.log_tail())

    def wait_version(self, version, failed_before, deadline):
        """Wait until field version >= version; None when the solve failed."""
        while True:
            if self.proc.poll() is not None:
                die("westd exited (status %s):\n%s" % (self.proc.returncode, self.log_tail()))
            code, st = self.json("GET", "/v1/status")
            if code == 200:
                f = st.get("field") or {}
                if f.get("version", 0) >= version:
                    return f["version"]
                q = st.get("queue") or {}
                if q.get("failed", 0) > failed_before and not q.get("pending") and not q.get("running"):
                    return None
            if time.monotonic() > deadline:
                return None
            time.sleep(0.02)


# ---------------------------------------------------------------- statistics
def angle_diff(a, b):
    d = abs(a - b) % 360.0
    return 360.0 - d if d > 180.0 else d


def speed_dir(u, v):
    s = math.hypot(u, v)
    d = (270.0 - math.degrees(math.atan2(v, u))) % 360.0 if s > 0 else 0.0
    return s, d


def stats(pairs):
    """pairs: list of (pred_u, pred_v, obs_u, obs_v)."""
    n = len(pairs)
    if n == 0:
        return {"n": 0, "rmse": None, "bias": None, "dir": None, "ndir": 0}
    se = sum((pu - ou) ** 2 + (pv - ov) ** 2 for pu, pv, ou, ov in pairs)
    bias = sum(math.hypot(pu, pv) - math.hypot(ou, ov) for pu, pv, ou, ov in pairs) / n
    dirs = []
    for pu, pv, ou, ov in pairs:
        ps, pd = speed_dir(pu, pv)
        os_, od = speed_dir(ou, ov)
        if ps >= CALM_DIR and os_ >= CALM_DIR:
            dirs.append(angle_diff(pd, od))
    return {"n": n, "rmse": math.sqrt(se / n), "bias": bias,
            "dir": sum(dirs) / len(dirs) if dirs else None, "ndir": len(dirs)}


def fmt(v, p=2):
    return "-" if v is None else "%.*f" % (p, v)


def idw(others, x, y):
    sw = su = sv = 0.0
    for o in others:
        d2 = (o["x"] - x) ** 2 + (o["y"] - y) ** 2
        if d2 == 0:
            return o["u"], o["v"]
        w = 1.0 / d2
        sw += w
        su += w * o["u"]
        sv += w * o["v"]
    return su / sw, sv / sw


def tables(cases, title):
    stations = sorted({c["id"] for c in cases})
    out = []
    out.append("### %s\n" % title)
    out.append("| station | cases | westd n | westd RMSE (m/s) | westd speed bias (m/s) | westd dir err (deg, n) "
               "| baseline RMSE, same cases | baseline speed bias | baseline dir err (deg, n) "
               "| RMSE ratio westd/baseline | baseline RMSE, all cases | not answered |")
    out.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name in stations + ["all"]:
        cs = [c for c in cases if name == "all" or c["id"] == name]
        ok = [c for c in cs if c["pred"] is not None]
        w = stats([(c["pred"][0], c["pred"][1], c["obs"][0], c["obs"][1]) for c in ok])
        b = stats([(c["base"][0], c["base"][1], c["obs"][0], c["obs"][1]) for c in ok])
        ball = stats([(c["base"][0], c["base"][1], c["obs"][0], c["obs"][1]) for c in cs])
        ratio = w["rmse"] / b["rmse"] if w["rmse"] is not None and b["rmse"] else None
        label = "**all**" if name == "all" else name
        out.append("| %s | %d | %d | %s | %s | %s (%d) | %s | %s | %s (%d) | %s | %s | %d |" % (
            label, len(cs), w["n"], fmt(w["rmse"]), fmt(w["bias"]), fmt(w["dir"], 1), w["ndir"],
            fmt(b["rmse"]), fmt(b["bias"]), fmt(b["dir"], 1), b["ndir"], fmt(ratio),
            fmt(ball["rmse"]), len(cs) - len(ok)))
    return "\n".join(out)


# ---------------------------------------------------------------- main
def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv", nargs="+", help="WindNinja station CSV file(s)")
    ap.add_argument("--westd", required=True, help="path of the westd binary")
    ap.add_argument("--dem", required=True, help="terrain (.asc with .prj beside it, or NetCDF)")
    ap.add_argument("--port", type=int, default=18080, help="port on 127.0.0.1 (default 18080)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="passed to westd as --set KEY=VALUE (repeatable)")
    ap.add_argument("--group-seconds", type=int, default=0,
                    help="group rows into sets by the nearest multiple of N s (default 0: equal times)")
    ap.add_argument("--exclude", action="append", default=[], metavar="ID",
                    help="drop this station's rows entirely (repeatable)")
    ap.add_argument("--min-others", type=int, default=2,
                    help="skip a hold-out with fewer other stations at that time (default 2)")
    ap.add_argument("--from", dest="source", metavar="ID",
                    help="predict every station from station ID alone (no leave-one-out)")
    ap.add_argument("--max-seconds", type=float, default=3600,
                    help="stop after this many seconds, reporting the cases done (default 3600)")
    ap.add_argument("--solve-timeout", type=float, default=300,
                    help="seconds to wait for one field (default 300)")
    ap.add_argument("--title", default="", help="title of the tables")
    ap.add_argument("--json", metavar="OUT", help="write every case as JSON to OUT")
    a = ap.parse_args()
    start = time.monotonic()
    deadline = start + a.max_seconds

    if not os.access(a.westd, os.X_OK):
        die("%s: not an executable" % a.westd)
    tm = None
    prj = os.path.splitext(a.dem)[0] + ".prj"
    if os.path.exists(prj):
        txt = open(prj).read()
        if re.search(r'PROJECTION\["Transverse_Mercator"\]', txt, re.I):
            tm = TransverseMercator(txt)
    rows = [r for r in read_rows(a.csv, tm) if r["id"] not in a.exclude]
    if a.source is not None and not any(r["id"] == a.source for r in rows):
        die("--from %s: no row of that station" % a.source)
    groups = group_rows(rows, a.group_seconds)
    header = ",".join(HEADER)

    tmp = tempfile.mkdtemp(prefix="westd-loo-")
    w = None
    cases, skipped, refused_posts, truncated = [], 0, [], False
    try:
        w = Westd(a.westd, a.dem, a.port, a.set, tmp)
        w.wait_live(min(deadline, time.monotonic() + 120))
        code, st = w.json("GET", "/v1/status")
        grid = st.get("grid", {}) if code == 200 else {}
        backend = (st.get("backend") or {}).get("device", "?") if code == 200 else "?"
        for key, g in groups:
            posted = None   # with --from: (version, why) of the one set of this time
            if a.source is not None:
                src = [r for r in g if r["id"] == a.source]
                held_out = [r for r in g if r["id"] != a.source] if src else []
            # the hold-outs in the order of the valid time of the set each
            # posts (its newest other row): westd refuses a set older than
            # the current field (422), so no set may come after a newer one
            order = sorted(g, key=lambda h: max((r["time"] for r in g if r is not h),
                                                default=0))
            if a.source is not None:
                order = held_out
            for held in order:
                if time.monotonic() > deadline:
                    truncated = True
                    break
                others = src if a.source is not None else [r for r in g if r is not held]
                if a.source is None and len(others) < a.min_others:
                    skipped += 1
                    continue
                if cases and len(cases) % 50 == 0:
                    print("loo.py: %d cases, %s, %.0f s" % (len(cases), iso(key),
                          time.monotonic() - start), file=sys.stderr, flush=True)
                obs = (held["u"], held["v"])
                base = idw(others, held["x"], held["y"])
                case = {"time": iso(key), "id": held["id"], "x": held["x"], "y": held["y"],
                        "z": held["height"], "obs": obs, "base": base, "pred": None,
                        "others": [o["id"] for o in others], "why": ""}
                cases.append(case)
                if posted is not None:
                    ver, why = posted
                    if ver is None:
                        case["why"] = why
                        continue
                else:
                    body = (header + "\n" + "\n".join(o["line"] for o in others) + "\n").encode()
                    failed_before = (st.get("queue") or {}).get("failed", 0) if code == 200 else 0
                    c, ans = w.json("POST", "/v1/observations", body, "text/csv")
                    if c != 202:
                        case["why"] = "POST %d: %s" % (c, ans.get("detail", ""))
                        refused_posts.append(case)
                        if a.source is not None:
                            posted = (None, case["why"])
                        continue
                    ver = w.wait_version(ans["field_version"], failed_before,
                                         min(deadline, time.monotonic() + a.solve_timeout))
                    code, st = w.json("GET", "/v1/status")
                if ver is None and time.monotonic() > deadline:
                    cases.pop()      # cut off by --max-seconds, not a westd failure
                    truncated = True
                    break
                if ver is None:
                    case["why"] = "no field: %s" % (st.get("last_error", "") if code == 200 else "")
                if a.source is not None:
                    posted = (ver, case["why"])
                if ver is None:
                    continue
                if held["sys"] == "GEOGCS":
                    q = {"lon": held["b"], "lat": held["a"]}
                else:
                    q = {"x": held["x"], "y": held["y"]}
                q.update({"z": "%.6g" % held["height"], "zref": "agl", "version": ver})
                c, p = w.json("GET", "/v1/field/point?" + urllib.parse.urlencode(q))
                if c == 200:
                    case["pred"] = (p["u"], p["v"])
                    case["ground"] = p.get("ground")
                    case["version"] = ver
                else:
                    case["why"] = "point %d %s: %s" % (c, (p or {}).get("type", "").rsplit("/", 1)[-1],
                                                      (p or {}).get("detail", ""))
            if truncated:
                break
    finally:
        if w is not None:
            w.stop()
        shutil.rmtree(tmp, ignore_errors=True)

    elapsed = time.monotonic() - start
    title = a.title or ", ".join(os.path.basename(p) for p in a.csv)
    print("## Leave-one-out: %s\n" % title)
    print("- westd: `%s` (%s); DEM `%s`; --set %s" % (a.westd, backend, a.dem,
          " ".join(a.set) if a.set else "(none)"))
    if grid:
        print("- grid: %s x %s x %s cells, dx %s m, base %s m, top %s m, terrain %s .. %s m" % (
            grid.get("nx"), grid.get("ny"), grid.get("nz"), grid.get("dx"),
            grid.get("base_altitude"), grid.get("top_altitude"),
            grid.get("terrain_min"), grid.get("terrain_max")))
    print("- %d observation times (%s .. %s), %d stations, %d hold-out cases; %d skipped "
          "(fewer than %d other stations); %.0f s%s" % (
              len(groups), iso(groups[0][0]) if groups else "-", iso(groups[-1][0]) if groups else "-",
              len({r["id"] for r in rows}), len(cases), skipped, a.min_others, elapsed,
              "; STOPPED at --max-seconds, the tables cover the cases done" if truncated else ""))
    if a.source is not None:
        print("- every station predicted from %s alone; the baseline is %s's wind" % (
            a.source, a.source))
    if a.exclude:
        print("- excluded stations: %s" % ", ".join(a.exclude))
    print()
    print(tables(cases, "Per station and overall"))
    print()
    print("RMSE: vector RMSE of (u, v); speed bias: mean(pred - obs speed); dir err: mean "
          "absolute direction error where both speeds >= %g m/s (n such cases). "
          "westd columns and 'same cases' baseline columns cover only the cases westd answered; "
          "'not answered' cases are listed below." % CALM_DIR)
    miss = [c for c in cases if c["pred"] is None]
    if miss:
        reasons = {}
        for c in miss:
            r = re.sub(r"-?\d+(\.\d+)?", "N", c["why"])[:100]
            reasons.setdefault(r, []).append(c)
        print("\nNot answered (%d of %d cases):\n" % (len(miss), len(cases)))
        for r, cs in sorted(reasons.items(), key=lambda kv: -len(kv[1])):
            ids = sorted({c["id"] for c in cs})
            print("- %d x `%s` (stations %s); e.g. %s %s: %s" % (
                len(cs), r, ", ".join(ids), cs[0]["time"], cs[0]["id"], cs[0]["why"]))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"cases": cases, "skipped": skipped, "truncated": truncated,
                       "args": vars(a)}, f, indent=1)
    return 0


if __name__ == "__main__":
    def on_signal(sig, frame):
        raise Stop("interrupted by signal %d" % sig)
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    try:
        sys.exit(main())
    except Stop as e:
        print("loo.py: %s" % e, file=sys.stderr)
        sys.exit(1)
