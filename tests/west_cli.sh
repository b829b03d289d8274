#!/bin/sh
# west_cli.sh (TAP): the one-shot command end to end: `west grid` (summary,
# JSON, backend choice), `west run` on the bundled terrain and sample
# observations (snapshot readable by ncdump and Python's netCDF4 with the
# CF attributes), `west run --geotiff` (the raster's bytes; GDAL reads it
# in tests/geotiff_gdal.sh), `west info`, WindNinja's station files (a time
# series, --time and --time-window, a station file list, the older
# format), and the exit code and message of each kind of failure (docs in
# `west --help` and docs/west.1).  In a build with GDAL ($west_gdal, from make check),
# GeoTIFFs made by gdal_translate and gdalwarp (gdal-bin) from
# data/default.asc: read as they are in UTM, warped from EPSG:4326, solved
# with stations in lon/lat; without GDAL, a GeoTIFF's refusal.
west=$top_builddir/west
data=$top_srcdir/data
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
n=0
# check DESCRIPTION WANT-EXIT PATTERN ARGS...: run west, compare exit code,
# grep stdout+stderr for PATTERN (fixed string).
check() {
	desc=$1 want=$2 pat=$3
	shift 3
	n=$((n + 1))
	"$west" "$@" >"$tmp/out" 2>&1
	rc=$?
	if [ "$rc" -eq "$want" ] && grep -qF -- "$pat" "$tmp/out"; then
		echo "ok $n - $desc"
	else
		echo "not ok $n - $desc (exit $rc, want $want and '$pat')"
		sed 's/^/# /' "$tmp/out"
	fi
}
echo "1..58"
check "summary of the default terrain" 0 "nx 96, ny 80, nz 30 = 230400 cells" \
	grid --terrain "$data/default.asc" --backend cpu
check "CRS from the .prj beside the terrain" 0 "crs      WGS_1984_UTM_Zone_33N" \
	grid --terrain "$data/default.asc" --backend cpu
check "one line of JSON" 0 '"nx":96,' grid --terrain "$data/default.asc" --json --backend cpu
check "config file and --set" 0 "nz 8 = " \
	grid --config "$top_srcdir/conf/westd.conf" --set nz=8 --set dz=50 --terrain "$data/hill.nc"
check "missing terrain file names it" 3 "nosuch.asc" grid --terrain "$tmp/nosuch.asc"
check "bad --set names the key" 3 "--set: unknown key 'nosuch'" grid --set nosuch=1 --terrain "$data/flat.asc"
# the terrain is read in a child process (src/terrain_child.c): its crash
# (WEST_TERRAIN_CHILD_FAULT: a segfault when the named file exists) is a
# refused terrain, not a crash of west
: >"$tmp/fault"
WEST_TERRAIN_CHILD_FAULT=$tmp/fault check "a crashing terrain reader is a refusal naming the signal" 3 \
	"flat.asc: the terrain reader (a child process) was killed by signal 11" \
	grid --terrain "$data/flat.asc" --backend cpu
printf hang >"$tmp/fault"
WEST_TERRAIN_CHILD_FAULT=$tmp/fault check "a terrain reader past terrain_timeout is stopped, the terrain refused" 3 \
	"did not finish within terrain_timeout = 1 s" \
	grid --terrain "$data/flat.asc" --backend cpu --set terrain_timeout=1
rm -f "$tmp/fault"
printf 'nz = 10\nbackend = gpu\n' >"$tmp/bad.conf"
check "bad config value names file and line" 3 "$tmp/bad.conf:2: backend" \
	grid --config "$tmp/bad.conf" --terrain "$data/flat.asc"
check "no command is a usage error" 2 "no command given"
check "unknown command is a usage error" 2 "unknown command 'fly'" fly
check "help lists the exit codes" 0 "exit codes:" --help
n=$((n + 1))
"$west" grid --terrain "$data/flat.asc" --backend cuda >"$tmp/out" 2>&1
rc=$?
if { [ $rc -eq 0 ] && grep -q '^backend  cuda: CUDA device' "$tmp/out"; } ||
   { [ $rc -eq 1 ] && grep -qE 'backend cuda: (no CUDA device|this build has no cuda backend)' "$tmp/out"; }; then
	echo "ok $n - --backend cuda runs on a GPU or says why not (exit $rc)"
else
	echo "not ok $n - --backend cuda (exit $rc)"
	sed 's/^/# /' "$tmp/out"
fi
# the backend auto must choose: cuda where the check above found a device
[ $rc -eq 0 ] && auto=cuda || auto=cpu

# --- west run / west info ---------------------------------------------------
obs=$data/obs/default.json
sed 's/"speed": 7,/"speed": -7,/' "$obs" >"$tmp/bad.json"
check "run writes a snapshot" 0 "wrote    $tmp/f.nc" \
	run --terrain "$data/default.asc" --obs "$obs" --out "$tmp/f.nc" --backend cpu
check "run: one line of JSON with the report" 0 '"solver":"multigrid"' \
	run --terrain "$data/default.asc" --obs "$obs" --out "$tmp/j.nc" --backend cpu --json
check "run: --solver sor is the paper's velocity form" 0 '"solver":"sor-velocity"' \
	run --terrain "$data/default.asc" --obs "$obs" --out "$tmp/s.nc" --backend cpu --json \
	--solver sor --iterations 20
check "run: --solver sor-potential" 0 'sor-potential, per-colour indexing, omega 1.25' \
	run --terrain "$data/default.asc" --obs "$obs" --out "$tmp/q.nc" --backend cpu \
	--solver sor-potential --iterations 20
check "run: --solver refuses an unknown name" 3 "solver" \
	run --terrain "$data/default.asc" --obs "$obs" --out "$tmp/x.nc" --backend cpu \
	--solver jacobi
check "run: --progress prints a line per step" 0 "step 9/9 divergence removal" \
	run --terrain "$data/default.asc" --obs "$obs" --out "$tmp/p.nc" --backend cpu \
	--iterations 5 --progress
check "run: masked indexing and omega from the command line" 0 "masked indexing, omega 1.5" \
	run --terrain "$data/default.asc" --obs "$data/obs/default.csv" --out "$tmp/m.nc" \
	--backend cpu --solver sor --iterations 5 --omega 1.5 --indexing masked
check "info prints the snapshot" 0 "stations 3" info "$tmp/f.nc"
check "run: backend auto chose $auto" 0 "\"backend\":\"$auto\"" \
	run --terrain "$data/default.asc" --obs "$obs" --out "$tmp/a.nc" --backend auto --json
check "info --json" 0 '"conventions":"CF-1.10"' info "$tmp/f.nc" --json
check "run: bad observations name the record, exit 3" 3 "speed" \
	run --terrain "$data/default.asc" --obs "$tmp/bad.json" --out "$tmp/bad.nc"
check "run: bad --omega names the option, exit 3" 3 "--omega: omega" \
	run --terrain "$data/default.asc" --obs "$obs" --out "$tmp/o.nc" --omega 2.5
check "run: --obs and --out are required" 2 "are required" run --terrain "$data/default.asc"
check "run: unwritable output, exit 1" 1 "$tmp/nodir/f.nc" \
	run --terrain "$data/default.asc" --obs "$obs" --out "$tmp/nodir/f.nc" --iterations 1
check "info: not a snapshot, exit 3" 3 "hill.nc" info "$data/hill.nc"
check "run --geotiff writes the raster too" 0 "wrote    $tmp/g.tif (GeoTIFF: the wind 10 m above the ground)" \
	run --terrain "$data/default.asc" --obs "$obs" --out "$tmp/g.nc" --geotiff "$tmp/g.tif" \
	--backend cpu
check "run --geotiff --height in the JSON" 0 "\"geotiff\":{\"file\":\"$tmp/h.tif\",\"height\":50" \
	run --terrain "$data/default.asc" --obs "$obs" --out "$tmp/h.nc" --geotiff "$tmp/h.tif" \
	--height 50 --backend cpu --json
check "run: --height below the ground is a usage error" 2 "--height '-5': not a height" \
	run --terrain "$data/default.asc" --obs "$obs" --out "$tmp/x.nc" --geotiff "$tmp/x.tif" \
	--height -5
check "run: --height without --geotiff is a usage error" 2 "give --geotiff FILE.tif too" \
	run --terrain "$data/default.asc" --obs "$obs" --out "$tmp/x.nc" --height 50
check "grid: --geotiff belongs to run" 2 "--geotiff and --height are options of west run" \
	grid --terrain "$data/default.asc" --geotiff "$tmp/x.tif"
check "run: unwritable GeoTIFF names it, exit 1" 1 "$tmp/nodir/g.tif" \
	run --terrain "$data/default.asc" --obs "$obs" --out "$tmp/u.nc" \
	--geotiff "$tmp/nodir/g.tif" --iterations 1
n=$((n + 1))
# a little-endian classic TIFF of 96 x 80 pixels of 4 float32 bands: at
# least 122880 bytes of samples (the tags are read in test_geotiff)
magic=$(od -An -tx1 -N4 "$tmp/g.tif" 2>/dev/null | tr -d ' ')
size=$(wc -c <"$tmp/g.tif" 2>/dev/null || echo 0)
if [ "$magic" = 49492a00 ] && [ "$size" -gt 122880 ] && [ ! -e "$tmp/x.tif" ]; then
	echo "ok $n - the GeoTIFF is a TIFF; refused runs write none"
else
	echo "not ok $n - the GeoTIFF is a TIFF; refused runs write none (magic $magic, $size bytes)"
fi
check "info needs one file" 2 "exactly one snapshot" info

# --- WindNinja's station files (docs/api.md, "Time series") ----------------
ts=$data/obs/timeseries.csv
fast="--terrain $data/default.asc --backend cpu --solver sor --iterations 1"
check "run: a time series keeps the newest record of each station" 0 \
	"times    3 stations, the newest record of each (10 records read): 2026-11-22T08:59:00Z to 2026-11-22T12:00:00Z" \
	run $fast --obs "$ts" --out "$tmp/ts.nc"
check "run: the times kept are logged on stderr" 0 \
	"west: notice: $ts: 3 stations, the newest record of each" \
	run $fast --obs "$ts" --out "$tmp/ts.nc"
check "run: --time takes the record nearest T within 1800 s" 0 \
	"times    2 stations (1 left out), the record of each nearest 2026-11-22T11:00:00Z within 1800 s (10 records read): 2026-11-22T11:00:00Z to 2026-11-22T11:28:00Z" \
	run $fast --obs "$ts" --out "$tmp/t1.nc" --time 2026-11-22T11:00:00Z
check "run: --time warns of each station left out" 0 \
	'west: warning: station "MET-E" left out: no record within 1800 s of 2026-11-22T11:00:00Z (the nearest is 2026-11-22T08:59:00Z)' \
	run $fast --obs "$ts" --out "$tmp/t1.nc" --time 2026-11-22T11:00:00Z
check "run: --time-window widens the window" 0 \
	"3 stations, the record of each nearest 2026-11-22T11:00:00Z within 7500 s" \
	run $fast --obs "$ts" --out "$tmp/t2.nc" --time 2026-11-22T11:00:00Z --time-window 7500
check "run: --json says which times in its times member" 0 \
	'"times":{"pick":"nearest","records":10,"oldest":"2026-11-22T11:00:00Z","newest":"2026-11-22T11:28:00Z","undated":0,"time":"2026-11-22T11:00:00Z","window":1800,"left_out":1}' \
	run $fast --obs "$ts" --out "$tmp/t3.nc" --time 2026-11-22T11:00:00Z --json
check "run: no station within the window, exit 3" 3 \
	"$ts: no station has a record within 1800 s of 2026-11-22T04:00:00Z (3 stations" \
	run $fast --obs "$ts" --out "$tmp/t4.nc" --time 2026-11-22T04:00:00Z
check "run: --time that is not ISO 8601 is a usage error" 2 \
	"west run: --time '22/11/2026' is not an ISO 8601 time" \
	run $fast --obs "$ts" --out "$tmp/t5.nc" --time 22/11/2026
check "run: --time-window without --time is a usage error" 2 \
	"west run: --time-window needs --time" \
	run $fast --obs "$ts" --out "$tmp/t5.nc" --time-window 60
check "run: a station file list pools its files" 0 \
	"times    2 stations, the newest record of each (8 records read)" \
	run $fast --obs "$data/obs/stations/default_stations_2.csv" --out "$tmp/l.nc"
printf 'Station_File_List,\n%s\nnosuch.csv\n' \
	"$data/obs/stations/MET-N-UTC-2026-11-22_1000-2026-11-22_1200-0.csv" >"$tmp/list.csv"
check "run: a list's missing file is named with the list's line, exit 3" 3 \
	"$tmp/list.csv: line 3: $tmp/nosuch.csv: cannot open: No such file or directory" \
	run $fast --obs "$tmp/list.csv" --out "$tmp/l2.nc"
check "run: the 15-column format takes the time of receipt" 0 \
	"2 without date_time, at the time of receipt" \
	run $fast --obs "$data/obs/old_format.csv" --out "$tmp/o15.nc"

n=$((n + 1))
if [ -e "$tmp/bad.nc" ] || [ -e "$tmp/o.nc" ]; then
	echo "not ok $n - failed runs leave no snapshot"
else
	echo "ok $n - failed runs leave no snapshot"
fi

# ncdump -h shows the CF attributes (netcdf-bin)
n=$((n + 1))
if ! command -v ncdump >/dev/null 2>&1; then
	echo "ok $n # SKIP ncdump (netcdf-bin) is not installed"
elif ncdump -h "$tmp/f.nc" >"$tmp/h" 2>&1 &&
     grep -q ':Conventions = "CF-1.10"' "$tmp/h" &&
     grep -q 'x_wind:standard_name = "x_wind"' "$tmp/h" &&
     grep -q 'upward_air_velocity:_FillValue' "$tmp/h" &&
     grep -q 'x_wind:grid_mapping = "crs"' "$tmp/h" &&
     grep -q 'crs:grid_mapping_name = "transverse_mercator"' "$tmp/h"; then
	echo "ok $n - ncdump -h shows the CF attributes"
else
	echo "not ok $n - ncdump -h shows the CF attributes"
	sed 's/^/# /' "$tmp/h"
fi

# Python's netCDF4 opens it and sees the fill in land cells (Debian's
# python3-netcdf4 lives under the system python3)
n=$((n + 1))
py=/usr/bin/python3
[ -x "$py" ] || py=python3
if ! "$py" -c 'import netCDF4' 2>/dev/null; then
	echo "ok $n # SKIP python3-netcdf4 is not installed"
elif "$py" - "$tmp/f.nc" >"$tmp/py" 2>&1 <<'PY'
import sys, netCDF4
d = netCDF4.Dataset(sys.argv[1])
assert d.Conventions == "CF-1.10"
u = d.variables["x_wind"][:]
assert u.shape == (1, 30, 80, 96), u.shape
assert u.mask.any() and not u.mask.all(), "land cells masked, air cells not"
assert d.variables["z"].positive == "up"
assert len(d.dimensions["station"]) == 3
print("ok", float(abs(u).max()))
PY
then
	echo "ok $n - python netCDF4 reads the snapshot"
else
	echo "not ok $n - python netCDF4 reads the snapshot"
	sed 's/^/# /' "$tmp/py"
fi

# --- terrain through GDAL (configure --with-gdal) ---------------------------
# skip N REASON: N tests skipped
skip() {
	k=0
	while [ $k -lt "$1" ]; do
		n=$((n + 1)) k=$((k + 1))
		echo "ok $n # SKIP $2"
	done
}
if [ "${west_gdal:-no}" != yes ]; then
	skip 6 "west was built without GDAL (configure --with-gdal=yes)"
elif ! command -v gdal_translate >/dev/null 2>&1 || ! command -v gdalwarp >/dev/null 2>&1; then
	skip 6 "gdal_translate and gdalwarp are not installed (Debian package gdal-bin)"
else
	# default.asc with its .prj as a GeoTIFF in UTM 33N, and the same warped
	# to longitude and latitude (NODATA outside the rotated outline)
	gdal_translate -q "$data/default.asc" "$tmp/default.tif"
	gdalwarp -q -t_srs EPSG:4326 -r bilinear -dstnodata -9999 "$tmp/default.tif" "$tmp/ll.tif"
	check "a GeoTIFF in UTM is read as it is" 0 "nx 96, ny 80, nz 30" \
		grid --terrain "$tmp/default.tif" --backend cpu
	check "a GeoTIFF in EPSG:4326 is warped to UTM zone 33N" 0 "crs      WGS 84 / UTM zone 33N" \
		grid --terrain "$tmp/ll.tif" --backend cpu --set resolution=100
	check "run on the warped GeoTIFF with stations in lon/lat" 0 "wrote    $tmp/ll.nc" \
		run --terrain "$tmp/ll.tif" --obs "$data/obs/default_lonlat.csv" --out "$tmp/ll.nc" \
		--backend cpu --set resolution=100
	n=$((n + 1))
	if ! command -v ncdump >/dev/null 2>&1; then
		echo "ok $n # SKIP ncdump (netcdf-bin) is not installed"
	elif ncdump -h "$tmp/ll.nc" 2>&1 | grep -qF 'crs:crs_wkt = "PROJCS[\"WGS 84 / UTM zone 33N\"'; then
		echo "ok $n - the snapshot's crs_wkt is the warp's CRS"
	else
		echo "not ok $n - the snapshot's crs_wkt is the warp's CRS"
		ncdump -h "$tmp/ll.nc" 2>&1 | grep crs | sed 's/^/# /'
	fi
	check "terrain_epsg warps to another zone" 0 "crs      WGS 84 / UTM zone 32N" \
		grid --terrain "$tmp/default.tif" --backend cpu --set terrain_epsg=32632 \
		--set resolution=100
	check "terrain_epsg must be a transverse Mercator in metres, exit 3" 3 \
		"terrain_epsg EPSG:4326 (WGS 84) is not a transverse Mercator on WGS 84 in metres" \
		grid --terrain "$tmp/default.tif" --backend cpu --set terrain_epsg=4326
fi
# the first bytes of a TIFF and nothing more: GDAL cannot read it, and a
# build without GDAL says how to convert one
printf 'II*\000\010\000\000\000\000\000' >"$tmp/bad.tif"
if [ "${west_gdal:-no}" = yes ]; then
	check "a broken TIFF is not a raster GDAL reads, exit 3" 3 \
		"$tmp/bad.tif: not a raster that GDAL can read" grid --terrain "$tmp/bad.tif"
else
	check "without GDAL a GeoTIFF is refused saying how to convert it, exit 3" 3 \
		"$tmp/bad.tif: a TIFF (GeoTIFF) file, but this westd was built without GDAL; convert it to an ESRI ASCII grid (gdal_translate -of AAIGrid" \
		grid --terrain "$tmp/bad.tif"
fi
