#!/usr/bin/env python3
"""Takes whole streets out of an address-point file, as a building import lacks a quarter's blocks,
and writes what to ask for them: the rest of the points (to index), and every seventh address of
the streets taken out, with its town, state, ZIP code and true position (to geocode and judge).
What EVALUATION.md's "a numbered street missing from its quarter" figures are measured on.

    python3 scripts/streets_taken_out.py ../shared/data/portland/addresses.csv.gz Portland \
        "Northeast 13th Avenue" "Southeast 19th Avenue" … > asked.csv   # writes kept.csv beside it
    locus index build --addresses kept.csv -o holed.locus
    locus enrich asked.csv --index holed.locus --output answers.csv --allow-failures
    python3 scripts/streets_taken_out.py --judge answers.csv

A street given as "Town|Street" is taken out of that town instead ("Forest Grove|19th Avenue");
`--every N` asks every Nth address (default 7; EVALUATION.md's suburbs: 3).

The CSV is read with its own header (number, street, city, state, postcode, lon, lat).
"""
import csv
import gzip
import math
import sys

EVERY = 7


def take_out(points_path, town, streets, every=EVERY):
    wanted = {tuple(s.split("|", 1)) if "|" in s else (town, s) for s in streets}
    opener = gzip.open if points_path.endswith(".gz") else open
    with opener(points_path, "rt", newline="") as f, open("kept.csv", "w", newline="") as kept_file:
        reader = csv.DictReader(f)
        kept = csv.DictWriter(kept_file, fieldnames=reader.fieldnames)
        kept.writeheader()
        asked = csv.writer(sys.stdout)
        asked.writerow(["address", "city", "state", "zip", "lon", "lat"])
        seen = 0
        for r in reader:
            if (r["city"], r["street"]) not in wanted:
                kept.writerow(r)
                continue
            seen += 1
            if seen % every == 0:
                asked.writerow([f"{r['number']} {r['street']}", r["city"], r["state"], r["postcode"], r["lon"], r["lat"]])


def judge(path, reach=75.0):
    rows = list(csv.DictReader(open(path, newline="")))
    near = elsewhere = none = 0
    for r in rows:
        if not r["longitude"]:
            none += 1
            continue
        dx = (float(r["longitude"]) - float(r["lon"])) * 111320 * math.cos(math.radians(float(r["lat"])))
        dy = (float(r["latitude"]) - float(r["lat"])) * 110540
        near += math.hypot(dx, dy) <= reach
        elsewhere += r["match_city"] != r["city"]
    print(f"{len(rows)} asked: {near} within {reach:.0f} m, {elsewhere} in another town, {none} without an answer")


if __name__ == "__main__":
    args = sys.argv[1:]
    every = EVERY
    if "--every" in args:
        i = args.index("--every")
        every = int(args[i + 1])
        del args[i:i + 2]
    if len(args) == 2 and args[0] == "--judge":
        judge(args[1])
    elif len(args) >= 3:
        take_out(args[0], args[1], args[2:], every)
    else:
        sys.exit(__doc__)
