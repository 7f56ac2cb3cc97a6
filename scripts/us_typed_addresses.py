#!/usr/bin/env python3
"""Real addresses typed across the US, as a parser's labelled training set holds them (usaddress's
`training/labeled.xml`: 1,513 strings from forms, letters and lists, each word labelled number,
street name, type, unit, recipient, place …). Locus has no addresses for them, so this builds a
small index of its own from the labels: one point per labelled street address (its number, its
street's words as labelled, its place, state and ZIP code), far from every other. Each string is
then geocoded as typed; it is read right when the first answer is its own point.

This measures how Locus reads addresses typed otherwise than Portland's records (recipients,
building names, units, PO boxes, other states' towns), not how it finds places.

    python3 scripts/us_typed_addresses.py prepare labeled.xml /tmp/us
    locus index build --addresses /tmp/us/addresses.csv --output /tmp/us/us.locus
    locus serve --index /tmp/us/us.locus --listen unix:/tmp/us.sock &
    python3 scripts/us_typed_addresses.py check /tmp/us/us.sock /tmp/us [--examples N]

The file: https://files.pythonhosted.org/packages/5e/f9/860e55d404434bba2c5d31ea2052d3aba4ffd32b352ebb9fd400c8ccbec5/usaddress-0.5.16.tar.gz
(MIT), `usaddress-0.5.16/training/labeled.xml`.
"""
import collections
import csv
import json
import math
import re
import sys
import xml.etree.ElementTree as ET

STREET_PARTS = ["StreetNamePreModifier", "StreetNamePreDirectional", "StreetNamePreType", "StreetName",
                "StreetNamePostType", "StreetNamePostDirectional", "StreetNamePostModifier"]


def clean(word):
    return word.strip(" ,.;:#")


def records(path):
    for node in ET.parse(path).getroot():
        text = "".join(node.itertext()).strip()
        parts = collections.defaultdict(list)
        for child in node:
            parts[child.tag].append(clean(child.text or ""))
        yield text, parts


def street_address(parts):
    """(number, street, city, state, zip) of a labelled street address, or None."""
    if len(parts["AddressNumber"]) != 1 or not parts["StreetName"] or parts["IntersectionSeparator"]:
        return None
    number = " ".join([parts["AddressNumber"][0]] + parts["AddressNumberSuffix"])
    if not re.fullmatch(r"\d+[A-Za-z]?|\d+ 1/2", number):
        return None
    # Labels in the order the string has them ("7th Street Southeast").
    street = " ".join(w for tag in STREET_PARTS for w in parts[tag] if w)
    zipcode = (parts["ZipCode"] or [""])[0][:5]
    return (number, street, " ".join(parts["PlaceName"]), (parts["StateName"] or [""])[0], zipcode)


def prepare(xml, out):
    seen = {}
    rows = []
    for text, parts in records(xml):
        key = street_address(parts)
        if key is None or key in seen:
            continue
        i = len(seen)
        # A grid 2 km apart in the open sea west of Oregon's coast is no spot a typed town is
        # near; each address is alone, so only reading the text right finds it.
        seen[key] = (round(-140 + (i % 40) * 0.03, 6), round(40 + (i // 40) * 0.03, 6))
        rows.append(key + seen[key])
    with open(f"{out}/addresses.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["number", "street", "city", "state", "postcode", "lon", "lat"])
        w.writerows(rows)
    print(f"{len(rows)} distinct street addresses written to {out}/addresses.csv")


SHORT = {"north": "n", "south": "s", "east": "e", "west": "w", "northeast": "ne", "northwest": "nw",
         "southeast": "se", "southwest": "sw", "street": "st", "avenue": "ave", "road": "rd", "drive": "dr",
         "boulevard": "blvd", "lane": "ln", "place": "pl", "court": "ct", "parkway": "pkwy", "highway": "hwy",
         "circle": "cir", "terrace": "ter", "square": "sq", "plaza": "plz", "trail": "trl"}


def same_address(key):
    """Number and street as one address, however the string spelt them ("10 S. Dearborn" and
    "10 South Dearborn"): a geocoder that reads one reads the other, so either spot is right."""
    words = re.sub(r"[^a-z0-9 ]", "", key[1].lower()).split()
    return (key[0].lower(), " ".join(SHORT.get(w, w) for w in words))


def distance(a, b):
    dx = (a[0] - b[0]) * 111320 * math.cos(math.radians(a[1]))
    dy = (a[1] - b[1]) * 110540
    return math.hypot(dx, dy)


def check(sock, out, xml, examples):
    sys.path.insert(0, __file__.rsplit("/", 1)[0])
    from locus_line import connect
    ask = connect(sock)
    spots = {}
    with open(f"{out}/addresses.csv") as f:
        for r in csv.DictReader(f):
            key = (r["number"], r["street"], r["city"], r["state"], r["postcode"])
            spots.setdefault(same_address(key), []).append((float(r["lon"]), float(r["lat"])))
    classes = collections.Counter()
    shown = collections.defaultdict(list)
    others = collections.Counter()
    for text, parts in records(xml):
        key = street_address(parts)
        reply = ask({"op": "geocode", "text": text, "max_results": 1})
        cands = (reply.get("result") or {}).get("candidates") or []
        if key is None:
            kind = "no street address" + (" (PO box)" if parts["USPSBoxID"] else "")
            others[(kind, "candidate" if cands else ("no candidate" if reply.get("ok") else reply["error"]["code"]))] += 1
            continue
        own = spots[same_address(key)]
        if not reply.get("ok"):
            cls = "error " + reply["error"].get("code", "?")
        elif not cands:
            cls = "no candidate"
        else:
            c = cands[0]
            loc = c["location"]
            d = min(distance(spot, (loc["x"], loc["y"])) for spot in own)
            kind = c.get("match_type", "?")
            if d < 1 and kind == "point_address":
                cls = "right"
            elif kind == "point_address":
                cls = "another address"
            elif kind in ("postcode", "locality", "neighbourhood"):
                cls = "street not read: only the " + kind
            else:
                cls = ("its" if d < 1 else "another") + " street, " + kind
        classes[cls] += 1
        if cls != "right" and len(shown[cls]) < examples:
            got = cands[0]["address"] if cands else reply.get("error", {}).get("message", "")
            labels = " | ".join(f"{t}={' '.join(v)}" for t, v in parts.items() if v and t not in ("ZipCode", "StateName"))
            shown[cls].append(f"{text!r} → {got!r}   [{labels}]")
    total = sum(classes.values())
    print(f"street addresses: {total}")
    for cls, n in classes.most_common():
        print(f"  {cls}: {n} ({100 * n / total:.1f} %)")
        for e in shown[cls]:
            print("      " + e)
    print("strings with no street address:")
    for (kind, got), n in sorted(others.items()):
        print(f"  {kind}: {got}: {n}")


if __name__ == "__main__":
    if sys.argv[1] == "prepare":
        prepare(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "check":
        ex = int(sys.argv[sys.argv.index("--examples") + 1]) if "--examples" in sys.argv else 3
        check(sys.argv[2], sys.argv[3], sys.argv[4], ex)
