#!/usr/bin/env python3
"""geotiff_gdal.py: GDAL (gdal-bin's gdalinfo and gdallocationinfo) reads
the GeoTIFFs westd writes without GDAL (TAP output):

- GET /v1/field/slice?z=10&format=geotiff from the real westd on the default
  terrain (tests/westd_proc.py), and
- `west run --geotiff` on the same terrain and observations;

for each: the CRS is EPSG:32633 (the default terrain's .prj is ESRI WKT
"WGS_1984_UTM_Zone_33N" with no EPSG authority, so westd derives the code
from the UTM parameters), the geotransform is the grid's (origin x0,
y0 + ny dy; pixels dx, -dy: /v1/field's grid), 4 Float32 bands named and
with units, nodata -9999, and the values at column centres equal the
API's /v1/field/point answers there (speed, direction, u, v; float32, so
to 1e-6 relative).

Usage: geotiff_gdal.py (top_srcdir and top_builddir from the environment,
as make check sets them).  Exits 77 with "1..0 # SKIP why" when gdalinfo
or gdallocationinfo is not installed (tests/geotiff_gdal.sh turns that
into the TAP skip).
"""
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.request

from westd_proc import BUILD, SRC, Tap, Westd, sample_obs, skip

for tool in ("gdalinfo", "gdallocationinfo"):
    if not shutil.which(tool):
        skip(f"{tool} is not installed (Debian: apt-get install gdal-bin)")

BANDS = [("wind_speed", "m/s", "speed"), ("wind_from_direction", "degree", "direction"),
         ("eastward_wind", "m/s", "u"), ("northward_wind", "m/s", "v")]
# column centres: the station VAL01, the south-west and north-east corners
POINTS = [(504850, 4652050), (500050, 4650050), (509550, 4657950)]


def gdalinfo(path):
    out = subprocess.run(["gdalinfo", "-json", path], capture_output=True, text=True,
                         timeout=60, check=True)
    return json.loads(out.stdout)


def structure(path, grid):
    """What gdalinfo says against the grid; None when it all holds."""
    info = gdalinfo(path)
    wkt = info.get("coordinateSystem", {}).get("wkt", "")
    if not re.search(r'ID\["EPSG",32633\]\]\s*$', wkt):
        return f"the CRS is not EPSG:32633:\n{wkt}"
    if "UTM zone 33N" not in wkt:
        return f"the CRS is not named UTM zone 33N:\n{wkt}"
    want = [grid["x0"], grid["dx"], 0.0, grid["y0"] + grid["ny"] * grid["dy"], 0.0,
            -grid["dy"]]
    if info.get("geoTransform") != want:
        return f"geoTransform {info.get('geoTransform')}, want {want}"
    if info.get("size") != [grid["nx"], grid["ny"]]:
        return f"size {info.get('size')}, want {[grid['nx'], grid['ny']]}"
    bands = info.get("bands", [])
    if len(bands) != 4:
        return f"{len(bands)} bands"
    for b, (name, unit, _) in zip(bands, BANDS):
        got = (b.get("type"), b.get("description"), b.get("unit"), b.get("noDataValue"))
        if got != ("Float32", name, unit, -9999.0):
            return f"band {b.get('band')}: {got}"
    meta = info.get("metadata", {}).get("", {})
    if meta.get("AREA_OR_POINT") != "Area" or meta.get("HEIGHT") != "10 m above ground":
        return f"metadata {meta}"
    return None


def values(path, w):
    """The pixels at POINTS against the API's point answers; None when equal."""
    for x, y in POINTS:
        out = subprocess.run(["gdallocationinfo", "-valonly", "-geoloc", path, str(x),
                              str(y)], capture_output=True, text=True, timeout=60,
                             check=True).stdout.split()
        p = w.get(f"/v1/field/point?x={x}&y={y}&z=10")
        for got, (name, _, key) in zip(out, BANDS):
            if not math.isclose(float(got), p[key], rel_tol=1e-6, abs_tol=1e-6):
                return f"{name} at ({x}, {y}): file {got}, API {p[key]}"
        if len(out) != 4:
            return f"gdallocationinfo gave {out}"
    return None


def main():
    tap = Tap(5, why_lines=30)
    with tempfile.TemporaryDirectory(prefix="westd-gdal-") as tmp:
        w = Westd(tmp, 1000)
        try:
            # one observation set, at the time now, for westd and west run
            doc = sample_obs()
            obs = os.path.join(tmp, "obs.json")
            with open(obs, "w") as f:
                json.dump(doc, f)
            w.wait_version(w.post(doc))
            grid = w.get("/v1/field")["grid"]
            api_tif = os.path.join(tmp, "api.tif")
            with urllib.request.urlopen(w.url + "/v1/field/slice?z=10&format=geotiff",
                                        timeout=30) as r, open(api_tif, "wb") as f:
                f.write(r.read())
            run_tif = os.path.join(tmp, "run.tif")
            run = subprocess.run([os.path.join(BUILD, "west"), "run", "--terrain",
                                  os.path.join(SRC, "data/default.asc"), "--obs", obs,
                                  "--out", os.path.join(tmp, "run.nc"), "--geotiff",
                                  run_tif, "--backend", "cpu"],
                                 capture_output=True, text=True, timeout=120)
            tap.check("gdalinfo: the API's GeoTIFF is EPSG:32633 on the grid, 4 named "
                      "Float32 bands", lambda: structure(api_tif, grid))
            tap.check("gdallocationinfo: the API's GeoTIFF has the API's point values",
                      lambda: values(api_tif, w))
            tap.check("west run --geotiff succeeds",
                      lambda: None if run.returncode == 0 else run.stdout + run.stderr)
            tap.check("gdalinfo: west run's GeoTIFF is EPSG:32633 on the grid, 4 named "
                      "Float32 bands", lambda: structure(run_tif, grid))
            tap.check("gdallocationinfo: west run's GeoTIFF has the API's point values "
                      "(the same observations)", lambda: values(run_tif, w))
        finally:
            w.stop(show_log=tap.failed)
    return 1 if tap.failed else 0


if __name__ == "__main__":
    sys.exit(main())
