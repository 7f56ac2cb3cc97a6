#!/usr/bin/env python3
"""Crossing queries for measuring where streets are said to meet (EVALUATION.md, "the central
districts").

    street_pairs.py POINTS [--count 3000] [--seed 7] > pairs.csv   # random pairs of a city's names
    street_pairs.py --downtown > downtown.csv                      # Portland's downtown grid

Random pairs of one city's street names mostly do not meet: fewer crossings answered is better,
and a new one is a crossing to look at. The downtown grid (21 streets by SW 1st-14th Ave, and W
Burnside St by NW 18th-25th Ave) all meet: more found is better. Output: one column, `address`,
for `locus enrich`.
"""
import argparse
import csv
import gzip
import random
import sys

DOWNTOWN_STREETS = ("Burnside Ankeny Ash Pine Oak Stark Washington Alder Morrison Yamhill Taylor Salmon Main "
                    "Madison Jefferson Columbia Clay Market Mill Montgomery Harrison").split()


def ordinal(n):
    return f"{n}{'th' if 11 <= n % 100 <= 13 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("points", nargs="?", help="address points CSV (.csv or .csv.gz) with street and city columns")
    ap.add_argument("--city", default="Portland")
    ap.add_argument("--count", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--downtown", action="store_true", help="Portland's downtown grid instead")
    args = ap.parse_args()
    out = csv.writer(sys.stdout)
    out.writerow(["address"])
    if args.downtown:
        for street in DOWNTOWN_STREETS:
            for n in range(1, 15):
                out.writerow([f"SW {ordinal(n)} Ave & {'W' if street == 'Burnside' else 'SW'} {street} St, Portland, OR"])
        for n in range(18, 26):
            out.writerow([f"NW {ordinal(n)} Ave & W Burnside St, Portland, OR"])
        return
    if not args.points:
        ap.error("POINTS is needed unless --downtown")
    opener = gzip.open if args.points.endswith(".gz") else open
    with opener(args.points, "rt", newline="") as f:
        names = sorted({r["street"] for r in csv.DictReader(f) if r["city"] == args.city and r["street"]})
    rng = random.Random(args.seed)
    for _ in range(args.count):
        a, b = rng.sample(names, 2)
        out.writerow([f"{a} & {b}, {args.city}, OR"])


if __name__ == "__main__":
    main()
