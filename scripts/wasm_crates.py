#!/usr/bin/env python3
"""Code bytes per crate in a wasm module, from its name section, before wasm-bindgen and
wasm-opt (which strip the names): where the playground's page module spends its size.

    python3 scripts/wasm_crates.py target/wasm32-unknown-unknown/web/playground_wasm.wasm

A function counts for the crate its mangled name starts with; a trait impl (`<T as Trait>`)
for the crate of its type, shown as `<crate`; `?` is a function without a mangled name.
The figures are of unoptimized code, so they rank crates rather than predict gzip sizes.
"""
import sys, re, collections
data = open(sys.argv[1], 'rb').read()
def leb(b, i):
    r = s = 0
    while True:
        x = b[i]; i += 1
        r |= (x & 0x7f) << s; s += 7
        if not x & 0x80: return r, i
i = 8; sections = []
while i < len(data):
    sid = data[i]; i += 1
    size, i = leb(data, i)
    sections.append((sid, i, size)); i += size
imports = 0
# count function imports
for sid, off, size in sections:
    if sid == 2:
        j = off; n, j = leb(data, j)
        for _ in range(n):
            l, j = leb(data, j); j += l
            l, j = leb(data, j); j += l
            kind = data[j]; j += 1
            if kind == 0: _, j = leb(data, j); imports += 1
            elif kind == 1: j += 1; fl, j = leb(data, j); _, j = leb(data, j); 
            elif kind == 2:
                fl, j = leb(data, j); _, j = leb(data, j)
                if fl & 1: _, j = leb(data, j)
            elif kind == 3: j += 2
bodies = {}
for sid, off, size in sections:
    if sid == 10:
        j = off; n, j = leb(data, j)
        for k in range(n):
            sz, j = leb(data, j); bodies[imports + k] = sz; j += sz
names = {}
for sid, off, size in sections:
    if sid == 0:
        j = off; l, j = leb(data, j); nm = data[j:j+l].decode(); j += l
        if nm != 'name': continue
        end = off + size
        while j < end:
            sub = data[j]; j += 1; ssz, j = leb(data, j); send = j + ssz
            if sub == 1:
                n, j = leb(data, j)
                for _ in range(n):
                    idx, j = leb(data, j); l, j = leb(data, j); names[idx] = data[j:j+l].decode('utf8', 'replace'); j += l
            j = send
agg = collections.Counter()
for idx, sz in bodies.items():
    name = names.get(idx, '?')
    m = re.match(r'_ZN(\d+)(\w+)', name)
    crate = '?'
    if m:
        n = int(m.group(1)); crate = m.group(2)[:n]
        if crate == '_' or crate.startswith('$LT$'):
            mm = re.search(r'\$LT\$(?:\$RF\$)?(?:mut\$u20\$)?(\w+?)\.\.', name)
            crate = '<' + (mm.group(1) if mm else '?')
    agg[crate] += sz
tot = sum(bodies.values())
print('code bytes', tot)
for c, s in agg.most_common(25): print(f'{s:9d} {100*s/tot:5.1f}% {c}')
datasize = sum(size for sid, off, size in sections if sid == 11)
print('data section', datasize)
