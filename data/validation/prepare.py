#!/usr/bin/env python3
"""prepare.py: write the station CSVs of data/validation/ from the source
records (data/README.md, "Validation data", says where each comes from).

    prepare.py granite  QES_PWIDS_DIR  OUT.csv
    prepare.py missoula WINDNINJA_STATION_DIR  OUT.csv
    prepare.py askervein EXP_ASKERVEIN_DIR TOWERS.csv OUT.csv
    prepare.py askervein-map MAP.map OUT_POINTS.csv

granite: the ten PWIDS sensor files (PWIDnn.xml) of UtahEFD/QES-Public
data/InputFiles/PWIDS/; every record is written unchanged (position, height,
speed, direction, time), one row per station per time.

missoula: the four station CSVs of firelab/windninja
data/WXSTATIONS-MDT-2018-06-20-2128-2018-06-21-2128-missoula_valley/; for
every whole UTC hour H and every station, the one record nearest to H within
30 minutes is kept (the earlier on a tie), unchanged, with its own time.
The RAWS stations report hourly (at :01, :28, :59), KMSO every 5 minutes.

askervein: run TU03-A of the Askervein Hill project (1983), the 10 m
mean winds of firemodels/exp Askervein_Hill/: line A (ASW-ANE_TU03A_10m.csv,
Table A1.3 of the report), line AA (AASW-AANE_TU03A_10m_MF.csv, Table A1.4,
the mean-flow masts) and the reference site RS (RS-HT_TU03A_50m_tower.csv,
Table A1.7: its 8 m cup, the level nearest 10 m; its direction is the AA
table's DIRECTION - DIF, the reference direction, 206 degrees in every row).
TOWERS.csv is firemodels/cad Askervein_Hill/Askervein_devc_loc.csv: each
mast's British National Grid reference (easting, northing - 800000 m).
Masts without a grid reference (ASW100) are left out, and none of the
digitized plot files is used.  One row per mast, in metres and m/s,
PROJCS on the British National Grid (EPSG:27700).

askervein-map: the elevation contours of the Windbench WAsP map
(firemodels/cad Askervein_Hill/Askervein_Neutral_elevation-roughness.map)
as points x,y,z in EPSG:27700 (the map's y + 800000 m), for gdal_grid.

Python 3 standard library only.
"""
import csv
import datetime as dt
import glob
import os
import re
import sys

HEADER = ("Station_Name,Coord_Sys(PROJCS,GEOGCS),Datum(WGS84,NAD83,NAD27),"
          "Lat/YCoord,Lon/XCoord,Height,Height_Units(meters,feet),Speed,"
          "Speed_Units(mph,kph,mps,kts),Direction(degrees),Temperature,"
          "Temperature_Units(F,C),Cloud_Cover(%),Radius_of_Influence,"
          "Radius_of_Influence_Units(miles,feet,meters,km),date_time")


def tag(text, name):
    m = re.search(r"<%s>\s*([^<]*?)\s*</%s>" % (name, name), text)
    if not m:
        raise SystemExit("no <%s> in a record" % name)
    return m.group(1)


def granite(src, out):
    rows = []
    for path in sorted(glob.glob(os.path.join(src, "PWID*.xml"))):
        name = os.path.basename(path)[:-4]
        text = open(path).read()
        if tag(text, "site_coord_flag") != "2" or tag(text, "site_UTM_zone") != "12":
            raise SystemExit("%s: not in UTM zone 12" % path)
        x, y = tag(text, "site_UTM_x"), tag(text, "site_UTM_y")
        for rec in re.findall(r"<timeSeries>(.*?)</timeSeries>", text, re.S):
            t = tag(rec, "timeStamp")
            dt.datetime.strptime(t, "%Y-%m-%dT%H:%M:%S")   # check the form
            # 100 % cloud cover: not observed; it makes westd take class D
            # (neutral), as the source's reciprocal (1/L) = 0 does.
            rows.append((t, name, [name, "PROJCS", "WGS84", y, x,
                         tag(rec, "height"), "meters", tag(rec, "speed"), "mps",
                         tag(rec, "direction"), "", "", "100", "-1", "", t + "Z"]))
    rows.sort(key=lambda r: (r[0], r[1]))
    write(out, [r[2] for r in rows])


def parse_time(s):
    return dt.datetime.strptime(s, "%Y-%m-%dT%H:%M:%SZ")


def missoula(src, out):
    rows = []
    listing = os.path.join(src, "missoula_valley_stations_4.csv")
    files = [l.strip().rstrip(",") for l in open(listing)][1:]
    for f in files:
        if not f:
            continue
        recs = list(csv.reader(open(os.path.join(src, f))))[1:]
        recs = [r for r in recs if r]
        times = [parse_time(r[15]) for r in recs]
        first = min(times).replace(minute=0, second=0)
        last = max(times)
        h = first
        while h <= last + dt.timedelta(hours=1):
            best = None
            for t, r in zip(times, recs):
                d = abs((t - h).total_seconds())
                if d <= 1800 and (best is None or d < best[0] or
                                  (d == best[0] and t < best[1])):
                    best = (d, t, r)
            if best:
                rows.append((best[1], best[2][0], best[2]))
            h += dt.timedelta(hours=1)
    rows.sort(key=lambda r: (r[0], r[1]))
    write(out, [r[2] for r in rows])


# run TU03-A: 3 October 1983, 14:00 to 17:00 BST (Taylor and Teunissen
# 1987); the exp files carry no time.  Cloud cover 100 %: not observed; it
# makes westd take class D (neutral), as for a near-neutral run.
ASK_TIME = "1983-10-03T13:00:00Z"
# table DIST (tens of metres from HT or CP) -> (station id, the mast's
# name in the towers file)
ASK_LINE_A = {-85: ("ASW85", "ASW85"), -60: ("ASW60", "ASW UK 30 m tower"),
              -50: ("ASW50", "ASW50"), -35: ("ASW35", "ASW35"), -20: ("ASW20", "ASW20"),
              -10: ("ASW10", "ASW10"), 0: ("HT", "HT 10 m t"), 10: ("ANE10", "ANE10"),
              20: ("ANE20", "ANE20"), 40: ("ANE40", "ANE40")}
ASK_LINE_AA = {0: ("CP", "CP Centre Point"), -10: ("AASW10", "AASW10 mf"),
               -20: ("AASW20", "AASW20"), -30: ("AASW30", "AASW30 mf"),
               -50: ("AASW50", "AASW50 mf")}


def ask_table(path):
    rows = list(csv.reader(open(path)))
    return [dict(zip(rows[1], r)) for r in rows[2:] if r]   # row 0: units


def askervein(src, towers_csv, out):
    towers = {r["Name"]: (r["Grid RefX"], r["Grid RefY"])
              for r in csv.DictReader(open(towers_csv, encoding="utf-8-sig"))}

    def row(ident, tower, height, speed, direction):
        e, n = towers[tower]
        return [ident, "PROJCS", "WGS84", n, e, height, "meters", speed, "mps",
                direction, "", "", "100", "-1", "", ASK_TIME]

    rs = {r["DZ"]: r for r in ask_table(os.path.join(src, "RS-HT_TU03A_50m_tower.csv"))}
    aa = ask_table(os.path.join(src, "AASW-AANE_TU03A_10m_MF.csv"))
    refdir = {float(r["DIRECTION"]) - float(r["DIF"]) for r in aa}
    if len(refdir) != 1:
        raise SystemExit("AA table: DIRECTION - DIF differs between rows: %r" % refdir)
    rows = [row("RS", "RS tower 8 m", "8", rs["8"]["RS_SPEED"], "%g" % refdir.pop())]
    for tab, names in (("ASW-ANE_TU03A_10m.csv", ASK_LINE_A),
                       ("AASW-AANE_TU03A_10m_MF.csv", ASK_LINE_AA)):
        for r in ask_table(os.path.join(src, tab)):
            d = int(float(r["DIST"]))
            if d in names:
                rows.append(row(*names[d], "10", r["SPEED"], r["DIRECTION"]))
    write(out, rows)


def askervein_map(path, out):
    lines = open(path).read().split("\n")[4:]   # 4 header lines
    i, n = 0, 0
    with open(out, "w") as f:
        f.write("x,y,z\n")
        while i < len(lines):
            h = lines[i].split()
            i += 1
            if not h:
                continue
            # a line's header: "elev n", "z0_left z0_right n" (a roughness
            # change only) or "z0_left z0_right elev n"; then n x,y pairs
            npts, pts = int(float(h[-1])), []
            while len(pts) < 2 * npts:
                pts += lines[i].split()
                i += 1
            if len(h) in (2, 4):
                for j in range(0, len(pts), 2):
                    f.write("%s,%.1f,%s\n" % (pts[j], float(pts[j + 1]) + 800000, h[-2]))
                    n += 1
    print("%s: %d points" % (out, n))


def write(out, rows):
    with open(out, "w", newline="") as f:
        f.write(HEADER + "\n")
        for r in rows:
            if len(r) != 16:
                raise SystemExit("a row without 16 fields: %r" % (r,))
            f.write(",".join(r) + "\n")
    print("%s: %d rows" % (out, len(rows)))


if __name__ == "__main__":
    kinds = {"granite": (granite, 4), "missoula": (missoula, 4),
             "askervein": (askervein, 5), "askervein-map": (askervein_map, 4)}
    if len(sys.argv) < 2 or sys.argv[1] not in kinds or len(sys.argv) != kinds[sys.argv[1]][1]:
        raise SystemExit(__doc__)
    kinds[sys.argv[1]][0](*sys.argv[2:])
