#!/usr/bin/env python3
"""Writes a synthetic street grid as an OpenStreetMap PBF file, for measuring what a country's
extract costs the server (reading time, memory) where no such extract can be downloaded.

    python3 benches/streets/grid.py N OUT.osm.pbf

N × N nodes 100 m apart around 50° N, joined by N streets each way: every tenth a primary road,
every fifth otherwise a secondary, the rest residential, every third residential street
one-way. 2·N·(N−1) segments: N = 708 gives a million. Needs pyosmium (`pip install osmium`);
scripts/test installs it in ~/.cache/insights/tools/osm-venv.
"""
import math
import sys

import osmium


def main():
    n, out = int(sys.argv[1]), sys.argv[2]
    lat0, lon0 = 50.0, 10.0
    dlat = 100.0 / 111_195.0
    dlon = dlat / math.cos(math.radians(lat0))
    writer = osmium.SimpleWriter(out, overwrite=True)
    node = lambda i, j: i * n + j + 1
    for i in range(n):
        for j in range(n):
            writer.add_node(osmium.osm.mutable.Node(
                id=node(i, j), location=(lon0 + j * dlon, lat0 + i * dlat)))

    def tags(k):
        if k % 10 == 0:
            return {"highway": "primary"}
        if k % 5 == 0:
            return {"highway": "secondary"}
        if k % 3 == 0:
            return {"highway": "residential", "oneway": "yes"}
        return {"highway": "residential"}

    way = 1
    for i in range(n):
        writer.add_way(osmium.osm.mutable.Way(
            id=way, nodes=[node(i, j) for j in range(n)], tags=tags(i)))
        way += 1
    for j in range(n):
        writer.add_way(osmium.osm.mutable.Way(
            id=way, nodes=[node(i, j) for i in range(n)], tags=tags(j)))
        way += 1
    writer.close()


if __name__ == "__main__":
    main()
