# Distinct addresses of the street-tree inventory with one tree's lon/lat, for measuring
# geocoding of city-typed addresses:  python3 scripts/trees_addresses.py && locus enrich /tmp/spell/trees_addr.csv -o OUT.csv --allow-failures && python3 scripts/trees_measure.py OUT.csv
import os; os.makedirs("/tmp/spell", exist_ok=True)
import csv,gzip
rows=csv.DictReader(gzip.open('/work/shared/data/portland/street_trees_dev.csv.gz','rt'))
seen={}
for r in rows:
    a=r['address'].strip()
    if a and a not in seen: seen[a]=(r['lon'],r['lat'])
w=csv.writer(open('/tmp/spell/trees_addr.csv','w',newline=''))
w.writerow(['address','tree_lon','tree_lat'])
for a,(x,y) in seen.items(): w.writerow([a,x,y])
print(len(seen))
