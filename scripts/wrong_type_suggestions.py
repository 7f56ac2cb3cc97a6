#!/usr/bin/env python3
"""A street type typed wrong into a search box: a seeded sample of the distinct addresses a
street-tree file records ("6132 NE 34TH AVE"), each with its type swapped for another common one
("6132 NE 34TH ST") where no street of that name and directional in the city has that type, so
that geocode still reads the recorded street. Each is geocoded and typed whole into suggest;
prints how many have geocode's answer among the 5 suggestions, how many get nothing, and how many
something else. A constructed class check, not an accuracy figure: the city's own records
rarely carry a wrong type.

    locus serve --listen unix:/tmp/locus.sock &
    python3 scripts/wrong_type_suggestions.py /tmp/locus.sock ../shared/data/portland/street_trees_dev.csv.gz
"""
import csv
import gzip
import random
import re
import sys

from locus_line import connect

SWAP = {"AVE": "ST", "ST": "AVE", "BLVD": "AVE", "DR": "ST", "CT": "ST", "PL": "ST", "RD": "ST", "WAY": "ST", "LN": "ST",
        "TER": "ST", "HWY": "RD", "PKWY": "RD", "CIR": "CT"}


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: wrong_type_suggestions.py SOCKET TREES.csv.gz")
    ask = connect(sys.argv[1])

    recorded, streets = set(), set()
    with gzip.open(sys.argv[2], "rt", newline="") as g:
        for row in csv.DictReader(g):
            m = re.fullmatch(r"(\d+) ((?:[NSEW]{1,2} )?[A-Z0-9 ]+?) ([A-Z]+)", row["address"].strip())
            if m and m.group(3) in SWAP:
                recorded.add((m.group(1), m.group(2), m.group(3)))
                streets.add((m.group(2), m.group(3)))
    rng = random.Random(42)
    sample = rng.sample(sorted(recorded), 1000)
    suggested = nothing = other = unread = 0
    for number, name, kind in sample:
        wrong = SWAP[kind]
        if (name, wrong) in streets:
            continue
        text = f"{number} {name} {wrong}"
        c = (ask({"id": 1, "op": "geocode", "text": text}).get("result") or {}).get("candidates") or []
        right = (ask({"id": 2, "op": "geocode", "text": f"{number} {name} {kind}"}).get("result") or {}).get("candidates") or []
        if not c or not right or c[0]["address"] != right[0]["address"]:
            unread += 1
            continue
        got = ask({"id": 3, "op": "suggest", "text": text, "max_results": 5})["result"]["suggestions"]
        if not got:
            nothing += 1
        elif any(x["text"] == c[0]["address"] or x["key"] == c[0]["key"] for x in got):
            suggested += 1
        else:
            other += 1
    print(f"typed with a wrong type and read by geocode as recorded {suggested + nothing + other}: geocode's answer suggested "
          f"{suggested}, nothing suggested {nothing}, something else {other}; geocode read otherwise {unread}")


if __name__ == "__main__":
    main()
