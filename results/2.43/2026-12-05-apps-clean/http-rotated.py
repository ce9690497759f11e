import sys, json, tempfile, shutil, os, statistics
sys.path.insert(0, '/work/main/bench')
import apps
B='/work/clean/build/2.43'
variants={'stock':[B+'/stock/bin/run'],'patched':[B+'/patched/bin/run']}
names=list(variants)
res=[]; failed=[]
wd=tempfile.mkdtemp(prefix='httprot-'); os.chmod(wd,0o755)
REPS=int(sys.argv[1])
for rep in range(REPS):
    order = names[rep%2:]+names[:rep%2]
    for v in order:
        failed += apps.run_http(v, variants[v], wd, rep, 5, res)
shutil.rmtree(wd, ignore_errors=True)
json.dump({'runs':res,'failed':failed}, open(sys.argv[2],'w'), indent=1)
print('failed', failed)
for n in sorted({r['threads'] for r in res}):
    rat=[]
    for rep in range(REPS):
        s=[r['rate'] for r in res if r['threads']==n and r['rep']==rep and r['variant']=='stock']
        p=[r['rate'] for r in res if r['threads']==n and r['rep']==rep and r['variant']=='patched']
        if s and p: rat.append(p[0]/s[0])
    ss=[r['rate'] for r in res if r['threads']==n and r['variant']=='stock']
    pp=[r['rate'] for r in res if r['threads']==n and r['variant']=='patched']
    print(n, 'stock med %.0f patched med %.0f ratio med %.3f  ratios %s' % (statistics.median(ss), statistics.median(pp), statistics.median(rat), ' '.join('%.2f'%x for x in sorted(rat))))
