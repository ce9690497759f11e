import sys, json, tempfile, shutil, os, statistics
sys.path.insert(0, '/work/main/bench')
import apps
B='/work/main/build/2.43'
variants={'stock':[B+'/stock/bin/run'],'fixes':[B+'/fixes/bin/run'],'patched':[B+'/patched/bin/run']}
names=list(variants)
res=[]; failed=[]
wd=tempfile.mkdtemp(prefix='httprot-'); os.chmod(wd,0o755)
REPS=int(sys.argv[1])
for rep in range(REPS):
    order = names[rep%3:]+names[:rep%3]
    for v in order:
        failed += apps.run_http(v, variants[v], wd, rep, 5, res)
shutil.rmtree(wd, ignore_errors=True)
json.dump({'runs':res,'failed':failed}, open(sys.argv[2],'w'), indent=1)
print('failed', failed)
for n in sorted({r['threads'] for r in res}):
    for v in ('fixes','patched'):
        rat=[]
        for rep in range(REPS):
            a=[r['rate'] for r in res if r['threads']==n and r['rep']==rep and r['variant']=='stock']
            b=[r['rate'] for r in res if r['threads']==n and r['rep']==rep and r['variant']==v]
            if a and b: rat.append(b[0]/a[0])
        med=lambda vv: statistics.median([r['rate'] for r in res if r['threads']==n and r['variant']==vv])
        print(n, v, 'stock med %.0f %s med %.0f ratio med %.3f ratios %s' % (med('stock'), v, med(v), statistics.median(rat), ' '.join('%.2f'%x for x in sorted(rat))))
