#!/usr/bin/env python3
"""Real clients, written by others, against a live `locus serve --http`.

Reads street trees (the city's recorded address and position) from a CSV, picks every Nth row
whose address has a house number, and asks the server through geopy's geocoders and geopandas'
geocode/reverse_geocode. Prints one JSON object per line:

    {"client": "arcgis", "text": "6132 NE 34TH AVE", "lat": 45.56, "lon": -122.62,
     "geocode": {"address": ..., "lat": ..., "lon": ..., "label": ...} | null,
     "reverse": {"address": ..., "lat": ..., "lon": ..., "label": ...} | null}

`label` is the client's raw answer's own address field (Esri's Match_addr, Pelias's label,
Nominatim's display_name), which the Swift test compares with the engine's answer.

Usage: geopy_clients.py --base http://127.0.0.1:8080 --trees street_trees_dev.csv.gz [--count 20]
                        [--clients arcgis,geopandas,pelias,nominatim]
"""
import argparse
import csv
import gzip
import json
import re
import sys
from urllib.parse import urlparse


def cases(path, count, step=997):
    opener = gzip.open if path.endswith(".gz") else open
    picked = []
    with opener(path, "rt", newline="", encoding="utf-8") as f:
        for i, row in enumerate(csv.DictReader(f)):
            if i % step:
                continue
            address = (row.get("address") or "").strip()
            if not re.match(r"^\d+ ", address):
                continue
            try:
                lon, lat = float(row["lon"]), float(row["lat"])
            except (KeyError, ValueError):
                continue
            picked.append({"text": address, "lat": lat, "lon": lon})
            if len(picked) == count:
                break
    return picked


def point(location, label):
    if location is None:
        return None
    return {"address": location.address, "lat": location.latitude, "lon": location.longitude, "label": label}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", required=True)
    ap.add_argument("--trees", required=True)
    ap.add_argument("--count", type=int, default=20)
    ap.add_argument("--clients", default="arcgis,geopandas")
    args = ap.parse_args()
    domain = urlparse(args.base).netloc
    chosen = args.clients.split(",")
    todo = cases(args.trees, args.count)
    out = sys.stdout

    if "arcgis" in chosen:
        from geopy.geocoders import ArcGIS
        g = ArcGIS(scheme="http", domain=domain, timeout=30)
        for c in todo:
            loc = g.geocode(c["text"] + ", Portland, OR", out_fields="*")
            rev = g.reverse((c["lat"], c["lon"]))
            out.write(json.dumps({**c, "client": "arcgis",
                                  "geocode": point(loc, loc and loc.raw["attributes"]["Match_addr"]),
                                  "reverse": point(rev, rev and rev.raw["Match_addr"])}) + "\n")

    if "geopandas" in chosen:
        import geopandas
        from geopy.geocoders import ArcGIS
        from shapely.geometry import Point
        texts = [c["text"] + ", Portland, OR" for c in todo]
        frame = geopandas.tools.geocode(texts, provider=ArcGIS, scheme="http", domain=domain, timeout=30)
        back = geopandas.tools.reverse_geocode([Point(c["lon"], c["lat"]) for c in todo],
                                               provider=ArcGIS, scheme="http", domain=domain, timeout=30)
        for c, (_, row), (_, rrow) in zip(todo, frame.iterrows(), back.iterrows()):
            g = None if row.geometry is None or row.geometry.is_empty else {
                "address": row["address"], "lat": row.geometry.y, "lon": row.geometry.x, "label": row["address"]}
            r = None if rrow.geometry is None or rrow.geometry.is_empty else {
                "address": rrow["address"], "lat": rrow.geometry.y, "lon": rrow.geometry.x, "label": rrow["address"]}
            out.write(json.dumps({**c, "client": "geopandas", "geocode": g, "reverse": r}) + "\n")

    if "pelias" in chosen:
        from geopy.geocoders import Pelias
        g = Pelias(domain=domain, scheme="http", api_key=None, timeout=30)
        for c in todo:
            loc = g.geocode(c["text"] + ", Portland, OR")
            rev = g.reverse((c["lat"], c["lon"]))
            out.write(json.dumps({**c, "client": "pelias",
                                  "geocode": point(loc, loc and loc.raw["properties"]["label"]),
                                  "reverse": point(rev, rev and rev.raw["properties"]["label"])}) + "\n")

    if "nominatim" in chosen:
        from geopy.geocoders import Nominatim
        g = Nominatim(domain=domain, scheme="http", user_agent="locus-test", timeout=30)
        for c in todo:
            loc = g.geocode(c["text"] + ", Portland, OR")
            rev = g.reverse((c["lat"], c["lon"]))
            out.write(json.dumps({**c, "client": "nominatim",
                                  "geocode": point(loc, loc and loc.raw["display_name"]),
                                  "reverse": point(rev, rev and rev.raw["display_name"])}) + "\n")


if __name__ == "__main__":
    main()
