#!/usr/bin/env python3
"""Suggest's cost for given texts on two or more servers side by side: the best of 60 requests each,
over a Unix socket, one request at a time. A text starting with @ is read from that file, its
invalid UTF-8 replaced, as the fuzzer reads it. The table of BENCHMARKS.md's "Suggest's worst
inputs bounded".

    locus serve --index Index/portland.locus --listen unix:/tmp/old.sock &   # one build
    locus serve --index Index/portland.locus --listen unix:/tmp/new.sock &   # another
    python3 scripts/suggest_timings.py /tmp/old.sock,/tmp/new.sock "stc pond & 2" "NE 34th & Killings"

With --keystrokes FILE (one text per line): every line, the best of 3 on each server in turn, and
each server's p50, p90, p99 and mean of those bests. With --geocode first: the texts are geocoded
(explain on, as the geocoder fuzzer asks), best of 30.

Suggest is asked as the geocoder fuzzer asks it: 10 suggestions, biased to a point in Portland.
(Before 2026-12-01 this script sent "maxResults" and "near", which the protocol does not know and
a server passes over: its suggest figures before then are of 5 suggestions with no bias point.)
"""
import json
import socket
import sys
import time


def best_of(f, text, times, geocode=False):
    request = ({"op": "geocode", "text": text, "explain": True} if geocode else
               {"op": "suggest", "text": text, "max_results": 10, "location": {"x": -122.6296, "y": 45.5676}})
    best = float("inf")
    for _ in range(times):
        start = time.perf_counter()
        f.write((json.dumps(request) + "\n").encode())
        f.flush()
        f.readline()
        best = min(best, time.perf_counter() - start)
    return best


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: suggest_timings.py SOCKET[,SOCKET…] (TEXT… | --keystrokes FILE)")
    conns = []
    for path in sys.argv[1].split(","):
        s = socket.socket(socket.AF_UNIX)
        s.connect(path)
        conns.append(s.makefile("rwb"))
    if sys.argv[2] == "--keystrokes":
        texts = [line.rstrip("\n") for line in open(sys.argv[3], encoding="utf-8", errors="replace")]
        bests = [[] for _ in conns]
        for text in texts:
            for k, f in enumerate(conns):
                bests[k].append(best_of(f, text, 3))
        for path, b in zip(sys.argv[1].split(","), bests):
            b.sort()
            q = lambda p: b[min(len(b) - 1, int(p * len(b)))] * 1e6
            print(f"{path}: {len(b)} keystrokes, p50 {q(0.5):.0f} µs, p90 {q(0.9):.0f} µs, p99 {q(0.99):.0f} µs, "
                  f"mean {sum(b) / len(b) * 1e6:.0f} µs")
        return
    geocode = sys.argv[2] == "--geocode"
    for arg in sys.argv[3 if geocode else 2:]:
        text = open(arg[1:], "rb").read().decode("utf-8", "replace") if arg.startswith("@") else arg
        row = [f"{best_of(f, text, 30 if geocode else 60, geocode) * 1000:6.2f} ms" for f in conns]
        print("  ".join(row), repr(text[:50]))


if __name__ == "__main__":
    main()
