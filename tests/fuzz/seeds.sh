#!/bin/sh
# tests/fuzz/seeds.sh [obs_list] [dem_gdal]: (re)make the seed corpora of
# fuzz_obs_list and fuzz_dem_gdal in tests/fuzz/corpus/ from the sample
# data of data/, and print each seed's size.  The committed seeds are this
# script's output; run it again after changing the inputs' framing.  Other
# files in those directories (reproducers of fixed findings) are kept.
#
# obs_list: the framing of fuzz_obs_list.c: an options byte, the list text,
# then "#file NAME" lines each followed by that file's content.
# dem_gdal: GeoTIFFs of 16 x 16 (some 8 x 8) cells cut from data/hill.asc
# (32 x 32 cells of 50 m from 500000, 4650000 in WGS 84 / UTM 33N) with
# gdal_translate -srcwin, warped with gdalwarp, edited with gdal_edit.py;
# a few KB each.  Needs GDAL's utilities (Debian: gdal-bin, python3-gdal).
set -eu
src=$(cd "$(dirname "$0")/../.." && pwd)
fz=$src/tests/fuzz/corpus
what=${*:-obs_list dem_gdal}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/westseeds.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

# seed OUT OPTIONS-BYTE(octal) LIST-FILE [NAME FILE]...
seed() {
	out=$1 opt=$2 list=$3
	shift 3
	{
		printf "\\$opt"
		cat "$list"
		while [ $# -ge 2 ]; do
			printf '#file %s\n' "$1"
			cat "$2"
			shift 2
		done
	} >"$fz/obs_list/$out"
}

obs_list() {
	mkdir -p "$fz/obs_list"
	st=$src/data/obs/stations obs=$src/data/obs
	n=MET-N-UTC-2026-11-22_1000-2026-11-22_1200-0.csv
	s=MET-S-UTC-2026-11-22_0928-2026-11-22_1128-1.csv
	# WindNinja's list and its two files, as the spool reads them (TM grid)
	seed spool_stations 001 "$st/default_stations_2.csv" "$n" "$st/$n" "$s" "$st/$s"
	# the same as west run --obs reads it (west_obs_load), nearest 11:00Z
	seed load_nearest 221 "$st/default_stations_2.csv" "$n" "$st/$n" "$s" "$st/$s"
	# current data: files without date_time, CRLF
	printf 'Recent_Station_File_List,\r\ncurrent.csv\r\n' >"$tmp/recent"
	seed recent_crlf 001 "$tmp/recent" current.csv "$obs/current.csv"
	# a BOM, quoted names, a trailing comma; PROJCS and GEOGCS files
	printf '\357\273\277"Station_File_List"\n"default.csv",\ndefault_lonlat.csv\n' >"$tmp/bom"
	seed bom_quoted 001 "$tmp/bom" default.csv "$obs/default.csv" \
		default_lonlat.csv "$obs/default_lonlat.csv"
	# a time series and WindNinja's 15-column format, max_stations 100
	printf 'Station_File_List,\ntimeseries.csv\nold_format.csv\n' >"$tmp/ts"
	seed timeseries_old_format 015 "$tmp/ts" timeseries.csv "$obs/timeseries.csv" \
		old_format.csv "$obs/old_format.csv"
	# paths that would leave the directory: the target rewrites '/' to '_'
	printf 'Station_File_List,\n../a.csv\nsub/b.csv\n/etc/passwd.csv\n' >"$tmp/paths"
	seed paths_rewritten 001 "$tmp/paths" ../a.csv "$obs/default.csv" \
		sub/b.csv "$st/$n"
	# one station at one time in two files
	seed duplicate_in_two_files 001 "$st/default_stations_2.csv" "$n" "$st/$n" "$s" "$st/$n"
	# parse_list's max_bytes 600: the files hold more
	seed over_600_bytes 101 "$st/default_stations_2.csv" "$n" "$st/$n" "$s" "$st/$s"
	# west_obs_load on a text that is no list: read as CSV
	seed load_plain_csv 020 "$obs/default.csv"
}

dem_gdal() {
	d=$fz/dem_gdal
	mkdir -p "$d"
	hill=$src/data/hill.asc
	t() { gdal_translate -q -of GTiff "$@"; }
	utm="-a_srs EPSG:32633"
	# in its own CRS (read as it is), little- and big-endian, BigTIFF south-up
	t -ot Float32 $utm -srcwin 8 8 16 16 "$hill" "$d/utm33.tif"
	t -ot Float32 $utm -srcwin 8 8 8 8 -co ENDIANNESS=BIG "$hill" "$d/utm33_big_endian.tif"
	t -ot Float32 $utm -srcwin 8 8 8 8 -co BIGTIFF=YES \
		-a_ullr 500400 4650400 500800 4650800 "$hill" "$d/utm33_bigtiff_south_up.tif"
	# geographic: warped to the centre's UTM zone (and one south of the equator)
	gdalwarp -q -overwrite -t_srs EPSG:4326 -ts 16 16 -r bilinear "$d/utm33.tif" "$d/geographic.tif"
	t -ot Float32 -a_srs EPSG:4326 -srcwin 8 8 8 8 -a_ullr 15 -42 15.004 -42.004 \
		"$hill" "$d/geographic_south.tif"
	# NODATA cells (refused or filled by the input's length)
	awk 'NR == 16 { $10 = $11 = $12 = -9999 } NR == 17 { $11 = -9999 } { print }' \
		"$hill" >"$tmp/holes.asc"
	t -ot Float32 $utm -srcwin 8 8 16 16 "$tmp/holes.asc" "$d/nodata.tif"
	# Int16 decimetres with a scale, heights in feet
	t -ot Int16 $utm -srcwin 8 8 8 8 -scale 0 1000 0 10000 -a_scale 0.1 "$hill" "$d/int16_scaled.tif"
	t -ot Float32 $utm -srcwin 8 8 8 8 "$hill" "$d/feet.tif"
	gdal_edit.py -units ft "$d/feet.tif"
	# compound CRS with a vertical CRS in US survey feet (NAVD88 height (ftUS))
	t -ot Float32 -a_srs EPSG:32633+6360 -srcwin 8 8 8 8 "$hill" "$d/compound_ftus.tif"
	# another transverse Mercator on another datum (British National Grid)
	t -ot Float32 -a_srs EPSG:27700 -srcwin 8 8 8 8 -a_ullr 400000 300400 400400 300000 \
		"$hill" "$d/bng_airy.tif"
	# refused: no CRS, GCPs, rotation, complex values, local CRS, too many cells
	t -ot Float32 -srcwin 8 8 8 8 "$hill" "$d/no_crs.tif"
	t -ot Float32 $utm -srcwin 8 8 8 8 -gcp 0 0 500400 4650800 -gcp 8 0 500800 4650800 \
		-gcp 0 8 500400 4650400 "$hill" "$d/gcps.tif"
	t -ot Float32 $utm -srcwin 8 8 8 8 "$hill" "$d/rotated.tif"
	/usr/bin/python3 -c 'import sys; from osgeo import gdal
ds = gdal.Open(sys.argv[1], gdal.GA_Update)
ds.SetGeoTransform((500400, 50, 5, 4650800, 5, -50))' "$d/rotated.tif"
	t -ot CInt16 $utm -srcwin 8 8 8 8 "$hill" "$d/cint16.tif"
	t -ot Float32 -a_srs 'LOCAL_CS["site grid",UNIT["metre",1]]' -srcwin 8 8 8 8 \
		"$hill" "$d/local_cs.tif"
	gdal_create -q -of GTiff -outsize 4096 4096 -bands 1 -ot Float32 $utm \
		-a_ullr 500000 4854800 704800 4650000 -co SPARSE_OK=TRUE -co TILED=YES -co BLOCKXSIZE=512 -co BLOCKYSIZE=512 \
		"$d/too_many_cells.tif"
	# two bands (band 1 read, a warning)
	t -ot Float32 $utm -srcwin 8 8 8 8 -b 1 -b 1 "$hill" "$d/two_bands.tif"
	rm -f "$d"/*.aux.xml
}

for w in $what; do
	"$w"
	ls -l "$fz/$w" | awk 'NR > 1 { print "  " $5 "\t" $9 }'
done
