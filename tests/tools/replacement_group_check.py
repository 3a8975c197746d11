#!/usr/bin/env python3
"""Independent check of tests/test_cli_replacements.cpp "the bundled examples without e2e.json": the
replacement group of examples/rmsnorm-4x512 A -> Areg (the ten ops whose calls per step grew), summed self
CPU per ProfilerStep, each run folder's first trace left out as the warm-up screen does (the first trace
of each run is 1.9x the later ones). Self time by time containment on the one CPU thread; the one-sided
Mann-Whitney p by the normal approximation with tie and continuity correction (SciPy's asymptotic method).

  python3 tests/tools/replacement_group_check.py      # prints: n_base n_head median_base median_head p
"""
import glob, json, math, os, statistics as st

os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
G={'aten::_to_copy','aten::copy_','aten::div_','aten::empty_strided','aten::fill_','aten::mean','aten::pow','aten::result_type','aten::sum','aten::to'}
def side(d):
    out=[]
    for run in sorted(glob.glob(d+'/run-*')):
        fs=sorted(glob.glob(run+'/*.pt.trace.json'))[1:]
        for f in fs:
            ev=[e for e in json.load(open(f)) if e.get('ph')=='X']
            ev.sort(key=lambda e:(e['ts'],-e['dur']))
            steps=[e for e in ev if e['name'].startswith('ProfilerStep')]
            ops=[e for e in ev if not e['name'].startswith('ProfilerStep')]
            # self time by containment (same tid): dur minus direct children's dur
            selft={}
            stack=[]
            for i,e in enumerate(ops):
                while stack and not (e['ts']>=stack[-1]['ts'] and e['ts']+e['dur']<=stack[-1]['ts']+stack[-1]['dur']): stack.pop()
                e['self']=e['dur']
                if stack: stack[-1]['self']-=e['dur']
                stack.append(e)
            for s in steps:
                tot=sum(e['self'] for e in ops if s['ts']<=e['ts']<s['ts']+s['dur'] and e['name'] in G)
                out.append(tot)
    return out
def mwu_worse(x,y):  # one-sided p that y > x, normal approx, tie + continuity corrected (scipy asymptotic)
    n1,n2=len(x),len(y); allv=sorted(x+y)
    ranks={}
    i=0
    while i<len(allv):
        j=i
        while j<len(allv) and allv[j]==allv[i]: j+=1
        ranks[allv[i]]=(i+j+1)/2; i=j
    R2=sum(ranks[v] for v in y); U=R2-n2*(n2+1)/2
    mu=n1*n2/2; n=n1+n2
    ties=[allv.count(v) for v in set(allv)]
    sd=math.sqrt(n1*n2/12*((n+1)-sum(t**3-t for t in ties)/(n*(n-1))))
    z=(U-mu-0.5)/sd
    return 0.5*math.erfc(z/math.sqrt(2))
a=side('examples/rmsnorm-4x512/A'); b=side('examples/rmsnorm-4x512/Areg')
print(len(a),len(b),st.median(a),st.median(b),mwu_worse(a,b))
