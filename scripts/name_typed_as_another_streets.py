#!/usr/bin/env python3
"""A street's name misspelt by one letter into another street's name, the type typed right: a
seeded sample of the distinct addresses a street-tree file records ("3000 SE HAWTHORNE BLVD"),
each with its name's word changed by one edit (a letter left out, added, changed or swapped) into
the name of a street in the address file, where no street of that name has the type typed
("3000 SE HAWTHORN BLVD": NE Hawthorn Ave is Hillsboro's). Each is geocoded with and without its
directional, and with the directional but no type; prints how many times geocode's first answer
is the street of the recorded address (its answer for the text as recorded). A constructed class
check, not an accuracy figure.

    locus serve --listen unix:/tmp/locus.sock &
    python3 scripts/name_typed_as_another_streets.py /tmp/locus.sock ../shared/data/portland/street_trees_dev.csv.gz ../shared/data/portland/addresses.csv.gz
"""
import csv
import gzip
import random
import re
import string
import sys

from locus_line import connect

DIRS = {"North": "N", "South": "S", "East": "E", "West": "W", "Northeast": "NE", "Northwest": "NW", "Southeast": "SE",
        "Southwest": "SW"}
TYPES = {"Avenue": "AVE", "Street": "ST", "Boulevard": "BLVD", "Drive": "DR", "Court": "CT", "Place": "PL", "Road": "RD",
         "Way": "WAY", "Lane": "LN", "Terrace": "TER", "Parkway": "PKWY", "Circle": "CIR", "Highway": "HWY", "Loop": "LOOP"}


def edits(word):
    letters = string.ascii_uppercase
    out = set()
    for i in range(len(word) + 1):
        if i < len(word):
            out.add(word[:i] + word[i + 1:])
            for c in letters:
                out.add(word[:i] + c + word[i + 1:])
        if i + 1 < len(word):
            out.add(word[:i] + word[i + 1] + word[i] + word[i + 2:])
        for c in letters:
            out.add(word[:i] + c + word[i:])
    out.discard(word)
    return out


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: name_typed_as_another_streets.py SOCKET TREES.csv.gz ADDRESSES.csv.gz")
    ask = connect(sys.argv[1])
    types_of = {}
    with gzip.open(sys.argv[3], "rt", newline="") as g:
        for row in csv.DictReader(g):
            words = (row["street"] or "").split()
            if len(words) < 2 or words[-1] not in TYPES:
                continue
            core = [w for w in words[:-1] if w not in DIRS]
            if len(core) == 1:
                types_of.setdefault(core[0].upper(), set()).add(TYPES[words[-1]])
    recorded = set()
    with gzip.open(sys.argv[2], "rt", newline="") as g:
        for row in csv.DictReader(g):
            m = re.fullmatch(r"(\d+) ([NSEW]{1,2}) ([A-Z]{5,}) ([A-Z]+)", row["address"].strip())
            if m and m.group(4) in TYPES.values():
                recorded.add(m.groups())
    cases = []
    for number, direction, name, kind in sorted(recorded):
        for variant in sorted(edits(name)):
            if variant in types_of and kind not in types_of[variant]:
                cases.append((number, direction, name, kind, variant))
    rng = random.Random(42)
    sample = rng.sample(cases, min(600, len(cases)))
    tally = {"with directional": [0, 0], "without": [0, 0], "directional, no type": [0, 0]}
    for number, direction, name, kind, variant in sample:
        truth = (ask({"id": 1, "op": "geocode", "text": f"{number} {direction} {name} {kind}"}).get("result") or {}).get("candidates") or []
        if not truth:
            continue
        street = truth[0]["address"].split(",")[0].split(" ", 1)[-1]
        for label, text in (("with directional", f"{number} {direction} {variant} {kind}"), ("without", f"{number} {variant} {kind}"),
                            ("directional, no type", f"{number} {direction} {variant}")):
            got = (ask({"id": 2, "op": "geocode", "text": text}).get("result") or {}).get("candidates") or []
            tally[label][1] += 1
            if got and got[0]["address"].split(",")[0].split(" ", 1)[-1] == street and got[0]["address"].split(",")[1] == truth[0]["address"].split(",")[1]:
                tally[label][0] += 1
    print(f"misspellings that are another street's name, of {len(cases)} ({len(sample)} sampled): the recorded street first "
          + "; ".join(f"{k} {right} of {n}" for k, (right, n) in tally.items()))


if __name__ == "__main__":
    main()
