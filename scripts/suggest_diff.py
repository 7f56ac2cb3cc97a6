#!/usr/bin/env python3
"""Every text of a file (one per line, as `locus-bench suggest --write-prefixes` writes them) suggested
by two servers: prints the texts whose suggestions differ (the first 15) and how many did. With
--geocode, the texts are geocoded instead (explain on, at most 10 candidates) and whole answers
compared: candidates, scores, locations, keys and notes.

    python3 scripts/suggest_diff.py /tmp/old.sock /tmp/new.sock prefixes.txt
    python3 scripts/suggest_diff.py --geocode /tmp/old.sock /tmp/new.sock crossings.txt
"""
import json
import socket
import sys


def main():
    args = sys.argv[1:]
    geocode = bool(args) and args[0] == "--geocode"
    if geocode:
        args = args[1:]
    if len(args) != 3:
        sys.exit("usage: suggest_diff.py [--geocode] SOCKET_A SOCKET_B TEXTS")

    def conn(path):
        s = socket.socket(socket.AF_UNIX)
        s.connect(path)
        return s.makefile("rwb")

    a, b = conn(args[0]), conn(args[1])

    def ask(f, i, text):
        request = ({"id": i, "op": "geocode", "text": text, "explain": True, "max_results": 10} if geocode
                   else {"id": i, "op": "suggest", "text": text})
        f.write((json.dumps(request) + "\n").encode())
        f.flush()
        result = json.loads(f.readline()).get("result") or {}
        if geocode:
            return [json.dumps(c, sort_keys=True) for c in result.get("candidates", [])]
        return [x["text"] for x in result.get("suggestions", [])]

    differ = 0
    for i, line in enumerate(open(args[2], encoding="utf-8", errors="replace")):
        text = line.rstrip("\n")
        ra, rb = ask(a, i, text), ask(b, i, text)
        if ra != rb:
            differ += 1
            if differ <= 15:
                print(repr(text), ra[:2], "->", rb[:2])
    print("differ", differ)


if __name__ == "__main__":
    main()
