#!/usr/bin/env python3
"""The pandas + shapely 2 peer for `locus assign`: the same join on the same file.

Reads a CSV of points (x, y columns, lon/lat), finds the neighbourhood polygons covering each
point with a shapely STRtree (vectorised query, predicate "intersects", which for points is
"covers"), joins the names and ids of every covering polygon, and writes every input row with
the appended columns, in input order:

    python3 scripts/peer_assign_pandas.py --layer ../shared/data/portland/neighborhoods.geojson \
        --points points.csv --output out.csv

What a pandas user would write; the timing is end to end (interpreter, imports, read, join, write).
"""
import argparse
import json

import numpy as np
import pandas as pd
import shapely


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--layer", required=True)
    ap.add_argument("--points", required=True)
    ap.add_argument("--output", required=True)
    ap.add_argument("--name-field", default="MAPLABEL")
    ap.add_argument("--id-field", default="OBJECTID")
    args = ap.parse_args()

    with open(args.layer) as f:
        features = json.load(f)["features"]
    geoms = shapely.from_geojson([json.dumps(ft["geometry"]) for ft in features])
    names = np.array([str(ft["properties"][args.name_field]) for ft in features], dtype=object)
    ids = np.array([str(ft["properties"][args.id_field]) for ft in features], dtype=object)
    # Smallest first where polygons overlap, as Locus orders them.
    area = shapely.area(geoms)

    df = pd.read_csv(args.points)
    tree = shapely.STRtree(geoms)
    point_idx, geom_idx = tree.query(shapely.points(df["x"].to_numpy(), df["y"].to_numpy()), predicate="intersects")
    hits = pd.DataFrame({"p": point_idx, "g": geom_idx, "area": area[geom_idx]}).sort_values(["p", "area"])
    hits["name"] = names[hits["g"].to_numpy()]
    hits["id"] = ids[hits["g"].to_numpy()]
    joined = hits.groupby("p").agg(name=("name", "; ".join), id=("id", "; ".join))
    df["status"] = "outside"
    df.loc[joined.index, "status"] = "covered"
    df["reason"] = ""
    df["neighborhoods"] = ""
    df["neighborhoods_id"] = ""
    df.loc[joined.index, "neighborhoods"] = joined["name"]
    df.loc[joined.index, "neighborhoods_id"] = joined["id"]
    df.to_csv(args.output, index=False)


if __name__ == "__main__":
    main()
