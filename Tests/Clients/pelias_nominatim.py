#!/usr/bin/env python3
"""geopy's Pelias and Nominatim geocoders — clients written by others — against a live
`locus serve --http`.

Usage:
    pelias_nominatim.py --base http://127.0.0.1:8080 --cases cases.json [--clients pelias,nominatim]

`cases.json` is a JSON array of cases:

    [{"text": "6132 NE 34th Ave", "lon": -122.6296, "lat": 45.5676}, ...]

For every case and client, one JSON object per line on stdout, in the order of the cases
(all of one client's lines, then the next client's):

    {"client": "pelias" | "nominatim", "text": ..., "lon": ..., "lat": ...,
     "geocode": {"address": str, "lat": float, "lon": float, "label": str} | null,
     "reverse": {"address": str, "lat": float, "lon": float, "label": str} | null,
     "error": str}                      # only when geopy raised; geocode/reverse are then null

- `geocode` is geopy's `geocode(text)`; `reverse` is geopy's `reverse((lat, lon))`; null when
  geopy answers None (nothing found).
- `address`, `lat`, `lon` are geopy's `Location.address`, `.latitude`, `.longitude`: for Pelias
  the feature's `name` ("6132 NE 34th Ave"), for Nominatim its `display_name`.
- `label` is the raw answer's own label: Pelias's `properties.label`
  ("6132 NE 34th Ave, Portland, OR, USA"), Nominatim's `display_name`.

Exit status 0 when every case was asked (answers may be null), 2 on bad arguments; a geopy
error on one case is reported in that case's line and does not stop the others.
"""
import argparse
import json
import sys
from urllib.parse import urlparse


def answer(location, label):
    if location is None:
        return None
    return {"address": location.address, "lat": location.latitude, "lon": location.longitude, "label": label}


def pelias_label(location):
    return location.raw.get("properties", {}).get("label") if location is not None else None


def nominatim_label(location):
    return location.raw.get("display_name") if location is not None else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", required=True, help="http://HOST:PORT of locus serve --http")
    ap.add_argument("--cases", required=True, help="JSON file: [{\"text\", \"lon\", \"lat\"}, ...]")
    ap.add_argument("--clients", default="pelias,nominatim")
    ap.add_argument("--timeout", type=float, default=30)
    args = ap.parse_args()

    base = urlparse(args.base)
    if base.scheme != "http" or not base.netloc:
        ap.error("--base must be http://HOST:PORT")
    with open(args.cases, encoding="utf-8") as f:
        cases = json.load(f)
    if not isinstance(cases, list):
        ap.error("--cases must hold a JSON array")

    from geopy.geocoders import Nominatim, Pelias

    geocoders = {
        "pelias": (Pelias(domain=base.netloc, scheme="http", api_key=None, timeout=args.timeout), pelias_label),
        "nominatim": (Nominatim(domain=base.netloc, scheme="http", user_agent="locus-test", timeout=args.timeout),
                      nominatim_label),
    }
    for name in args.clients.split(","):
        if name not in geocoders:
            ap.error(f"unknown client {name!r}: pelias or nominatim")
        geocoder, label = geocoders[name]
        for case in cases:
            line = {"client": name, "text": case["text"], "lon": case["lon"], "lat": case["lat"],
                    "geocode": None, "reverse": None}
            try:
                found = geocoder.geocode(case["text"])
                line["geocode"] = answer(found, label(found))
                back = geocoder.reverse((case["lat"], case["lon"]))
                line["reverse"] = answer(back, label(back))
            except Exception as error:  # noqa: BLE001 — reported per case, as the caller compares
                line["error"] = f"{type(error).__name__}: {error}"
            sys.stdout.write(json.dumps(line) + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
