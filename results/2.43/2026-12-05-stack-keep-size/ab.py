"""ab.py VARIANTS REPS THREADS:PARAM,... OUT.json: create-join of each
variant (SYSROOT or SYSROOT@TUNABLE=VALUE) under BUILD_DIR (build/2.43),
interleaved, with paired ratios to stock; see README.md."""
import json, subprocess, sys, random, statistics as st, os
B=os.path.abspath(os.environ.get('BUILD_DIR', 'build/2.43'))
TOP=os.path.dirname(os.path.dirname(B))
EXE=lambda v: '/tmp/ab-cj-%s-%s' % (os.path.basename(B), v)
variants=sys.argv[1].split(',')
reps=int(sys.argv[2])
cfgs=[c.split(':') for c in sys.argv[3].split(',')]   # threads:param
for v in variants:
    v=v.split('@')[0]
    exe=EXE(v)
    subprocess.check_call([B+'/'+v+'/bin/cc','-O2','-g','-Wall','-pthread','-o',exe,
        TOP+'/bench/driver.c',TOP+'/bench/cases/create-join.c'])
res={}
for r in range(reps):
    for t,p in cfgs:
        order=variants[:] if r%2==0 else variants[::-1]
        for v in order:
            sv,_,tun=v.partition('@')
            env=dict(os.environ)
            if tun: env['GLIBC_TUNABLES']='glibc.pthread.'+tun
            cmd=[B+'/'+sv+'/bin/run',EXE(sv),'-t',t,'-w','0.5','-d','1']
            if p!='-': cmd+=['-p',p]
            out=subprocess.run(cmd,capture_output=True,text=True,env=env)
            try: j=json.loads(out.stdout.strip().splitlines()[-1])
            except Exception: print('fail',v,t,p,out.stderr[-300:]); continue
            res.setdefault((t,p),{}).setdefault(v,[]).append((j['rate'] if 'rate' in j else j['median'], j['rss_kib']))
json.dump({'%s:%s'%k:v for k,v in res.items()},open(sys.argv[4],'w'))
def ci(r):
    random.seed(13); m=sorted(st.median(random.choices(r,k=len(r))) for _ in range(2000))
    return '%.3f [%.3f, %.3f]'%(st.median(r),m[50],m[1949])
for k,d in res.items():
    base=d['stock']
    line='t=%s %s:'%k
    for v in variants:
        rates=[x[0] for x in d[v]]; rss=[x[1] for x in d[v]]
        line+=' %s %d/s rss %d-%d MiB'%(v,st.median(rates),min(rss)//1024,max(rss)//1024)
        if v!='stock': line+=' ratio '+ci([a[0]/b[0] for a,b in zip(d[v],base)])
        line+=' |'
    print(line)
