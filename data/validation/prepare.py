#!/usr/bin/env python3
"""prepare.py: write the station CSVs of data/validation/ from the source
records (data/README.md, "Validation data", says where each comes from).

    prepare.py granite  QES_PWIDS_DIR  OUT.csv
    prepare.py missoula WINDNINJA_STATION_DIR  OUT.csv

granite: the ten PWIDS sensor files (PWIDnn.xml) of UtahEFD/QES-Public
data/InputFiles/PWIDS/; every record is written unchanged (position, height,
speed, direction, time), one row per station per time.

missoula: the four station CSVs of firelab/windninja
data/WXSTATIONS-MDT-2018-06-20-2128-2018-06-21-2128-missoula_valley/; for
every whole UTC hour H and every station, the one record nearest to H within
30 minutes is kept (the earlier on a tie), unchanged, with its own time.
The RAWS stations report hourly (at :01, :28, :59), KMSO every 5 minutes.

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


def write(out, rows):
    with open(out, "w", newline="") as f:
        f.write(HEADER + "\n")
        for r in rows:
            if len(r) != 16:
                raise SystemExit("a row without 16 fields: %r" % (r,))
            f.write(",".join(r) + "\n")
    print("%s: %d rows" % (out, len(rows)))


if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] not in ("granite", "missoula"):
        raise SystemExit(__doc__)
    (granite if sys.argv[1] == "granite" else missoula)(sys.argv[2], sys.argv[3])
