# Share of enrich output within 75 m of the tree, overall and per input form (see trees_addresses.py).
# Usage: python3 scripts/trees_measure.py OUT.csv [N failures to show per form]
import csv,sys,re,math,collections
def form(a):
    u=a.upper()
    if re.search(r'\b(COR|[NS][EW]C|SIDE)/',u) or '&' in u: return 'corner'
    if re.search(r'^\d+(-\d+)? [A-Z]{1,2}/',u): return 'qualifier'
    if re.match(r'^\d+-\d+ ',u): return 'range'
    if not re.match(r'^\d',u): return 'no_number'
    if ',' in u: return 'unit'
    if not re.search(r' (AVE|ST|BLVD|PL|CT|DR|RD|WAY|TER|PKWY|LN|HWY|CIR|LOOP|BROADWAY|CENTER)$',u): return 'no_type'
    return 'plain'
tot=collections.Counter(); ok=collections.Counter(); matched=collections.Counter()
fails=collections.defaultdict(list)
for r in csv.DictReader(open(sys.argv[1])):
    f=form(r['address']); 
    for k in (f,'ALL'):
        tot[k]+=1
    good=False
    if r['status']=='matched' and r['longitude']:
        x,y=float(r['longitude']),float(r['latitude']); tx,ty=float(r['tree_lon']),float(r['tree_lat'])
        d=math.hypot((x-tx)*math.cos(math.radians(ty))*111320,(y-ty)*110540)
        good=d<=75
        for k in (f,'ALL'): matched[k]+=1
    if good:
        for k in (f,'ALL'): ok[k]+=1
    else: fails[f].append((r['address'],r['status'],r.get('match_addr','')))
print(f"{'form':10} {'n':>6} {'matched':>8} {'<=75m':>8}")
for k in ['ALL','plain','range','qualifier','corner','no_number','no_type','unit']:
    if tot[k]: print(f"{k:10} {tot[k]:6} {100*matched[k]/tot[k]:7.1f}% {100*ok[k]/tot[k]:7.1f}%")
if len(sys.argv)>2:
    import random
    for f,l in fails.items():
        random.seed(1); print('==',f,len(l))
        for e in random.sample(l,min(len(l),int(sys.argv[2]))): print('  ',e)
