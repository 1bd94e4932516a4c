#!/usr/bin/env bash
# Compares the GPU machine code of two builds' objects, function by function: every .text.<name>
# section of the sm_90 cubins embedded in BASE_DIR/**/*.o against NEW_DIR/**/*.o (host objects with
# a .nv_fatbin, as CMake leaves them under build/*/CMakeFiles/<target>.dir), whatever file each
# function now lives in. Compared per mangled name: the code bytes, the section flags and register
# count, and the relocations (by symbol name); anonymous-namespace names are taken without their
# per-file hash (_GLOBAL__N__<hash>_<len>_<file>_<hash> -> _GLOBAL__N_), so a kernel may move file.
# Needs only python3 (no cuobjdump: it reads the fatbin and cubin ELF itself; uncompressed cubins,
# nvcc's default for sm_XX machine code). Exit 0 when every function of both sides is identical.
#   bash scripts/compare-kernels.sh /tmp/baseline-cuda/cuzk_cuda.dir build/native/CMakeFiles/cuzk_cuda_objs.dir
set -euo pipefail
[[ $# -eq 2 && -d $1 && -d $2 ]] || { echo "usage: $0 BASE_DIR NEW_DIR (folders of .o files)" >&2; exit 2; }
exec python3 - "$1" "$2" <<'PY'
import glob, hashlib, os, re, struct, sys

def sections(elf):
    shoff = struct.unpack_from('<Q', elf, 0x28)[0]
    shentsize, shnum, shstrndx = struct.unpack_from('<HHH', elf, 0x3A)
    out = []
    for i in range(shnum):
        name, typ, flags, _addr, off, size, link, info, _al, entsize = struct.unpack_from('<IIQQQQIIQQ', elf, shoff + i * shentsize)
        out.append(dict(name=name, type=typ, flags=flags, off=off, size=size, link=link, info=info, entsize=entsize))
    stroff = out[shstrndx]['off']
    for s in out:
        s['name'] = elf[stroff + s['name']:elf.index(b'\0', stroff + s['name'])].decode()
    return out

def cubins(obj):
    """The ELF (machine code) entries of an object's .nv_fatbin: fatbin header 0xBA55ED50, then entries of kind 2."""
    data = open(obj, 'rb').read()
    if data[:4] != b'\x7fELF':
        return
    for s in sections(data):
        if s['name'] != '.nv_fatbin':
            continue
        fb, p = data[s['off']:s['off'] + s['size']], 0
        while p + 16 <= len(fb):
            magic, _ver, hsz, fsz = struct.unpack_from('<IHHQ', fb, p)
            if magic != 0xBA55ED50:
                break
            q = p + hsz
            while q < p + hsz + fsz:
                kind, _v, ehsz, esz = struct.unpack_from('<HHIQ', fb, q)
                body = fb[q + ehsz:q + ehsz + esz]
                if kind == 2:
                    if body[:4] != b'\x7fELF':
                        sys.exit(f'{obj}: a compressed cubin (build with nvcc --compress-mode=none to compare)')
                    yield body
                q += ehsz + esz
            p += hsz + fsz

ANON = re.compile(r'(\d+)_GLOBAL__N__')
def norm(name):
    # <len>_GLOBAL__N__<hash>_<n>_<file>_<hash>: the whole length-prefixed identifier, replaced
    out, i = '', 0
    for m in ANON.finditer(name):
        if m.start() < i:
            continue
        out += name[i:m.start()] + '_GLOBAL__N_'
        i = m.start(2 - 1) + len(m.group(1)) + int(m.group(1))
    return out + name[i:]

def functions(cubin):
    secs = sections(cubin)
    by_name = {s['name']: s for s in secs}
    def symbols(symtab):
        st, strs = secs[symtab], secs[secs[symtab]['link']]
        names = []
        for k in range(st['size'] // 24):
            st_name, st_info, _o, st_shndx, _v, _sz = struct.unpack_from('<IBBHQQ', cubin, st['off'] + 24 * k)
            if st_info & 0xF == 3 and st_shndx < len(secs):  # a section symbol: the section's name
                names.append(secs[st_shndx]['name'])
            else:
                names.append(cubin[strs['off'] + st_name:cubin.index(b'\0', strs['off'] + st_name)].decode())
        return names
    for s in secs:
        if not s['name'].startswith('.text.'):
            continue
        fn = s['name'][len('.text.'):]
        h = hashlib.sha256(cubin[s['off']:s['off'] + s['size']])
        h.update(struct.pack('<QI', s['flags'], s['info'] >> 24))  # flags, register count
        relocs = []
        for rn in ('.rel.text.' + fn, '.rela.text.' + fn):
            r = by_name.get(rn)
            if not r:
                continue
            syms = symbols(r['link'])
            ent = r['entsize'] or (24 if rn.startswith('.rela') else 16)
            for k in range(r['size'] // ent):
                off, info = struct.unpack_from('<QQ', cubin, r['off'] + ent * k)
                add = struct.unpack_from('<q', cubin, r['off'] + ent * k + 16)[0] if ent == 24 else 0
                relocs.append(f'{off}:{info & 0xFFFFFFFF}:{norm(syms[info >> 32])}:{add}')
        h.update('\n'.join(relocs).encode())
        yield norm(fn), ('.nv.constant0.' + fn) in by_name, s['size'], h.hexdigest()

def collect(root):
    funcs = {}  # name -> {digest}
    kernels, nobj = set(), 0
    for obj in sorted(glob.glob(os.path.join(root, '**', '*.o'), recursive=True)):
        for cb in cubins(obj):
            nobj += 1
            for name, is_kernel, _size, digest in functions(cb):
                funcs.setdefault(name, set()).add(digest)
                if is_kernel:
                    kernels.add(name)
    return funcs, kernels, nobj

base, new = sys.argv[1], sys.argv[2]
bf, bk, bn = collect(base)
nf, nk, nn = collect(new)
print(f'base: {bn} cubins, {len(bf)} functions ({len(bk)} kernels) in {base}')
print(f'new:  {nn} cubins, {len(nf)} functions ({len(nk)} kernels) in {new}')
only_base = sorted(set(bf) - set(nf))
only_new = sorted(set(nf) - set(bf))
differ = sorted(n for n in set(bf) & set(nf) if bf[n] != nf[n])
for n in set(bf) | set(nf):
    if len(bf.get(n, ())) > 1 or len(nf.get(n, ())) > 1:
        print(f'note: {n} has {len(bf.get(n, ()))} / {len(nf.get(n, ()))} distinct versions across translation units')
for label, names in (('only in base', only_base), ('only in new', only_new), ('differ', differ)):
    for n in names:
        print(f'{label}: {"kernel" if n in bk | nk else "function"} {n}')
same = len(set(bf) & set(nf)) - len(differ)
print(f'compared {len(set(bf) & set(nf))} functions ({len(bk & nk)} kernels): {same} identical, {len(differ)} differ, '
      f'{len(only_base)} only in base, {len(only_new)} only in new')
sys.exit(0 if not (differ or only_base or only_new) else 1)
PY
